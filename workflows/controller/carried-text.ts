// Free text an argument carries out: a message body or a reason is the model's own words, but a
// link, an address or an account number inside it is data, and leaves only from a trusted source.
// The narrative check of provenance.ts; kept apart because its patterns are the part that grows.
import { saysAsWritten } from './says-as-written.js';
import type { RunState } from './state.js';

/**
 * What a narrative argument (a message body, a reason) may not carry out: a link (any scheme, or
 * a bare domain or IPv4 address), an address or an account-like number (whole, or in groups of
 * four, as IBANs and cards are written) that no trusted source vouches for. The model's own words
 * are its own, and a value a trusted source holds may be quoted; but a link read on a web page (or
 * one the model made up, or read where the engine kept only part of the text) pasted into a
 * message to a colleague is data leaving on someone else's instruction. Domains and addresses may
 * be written in any script (`it@домен.рф`); the text is normalised first (`normalised`).
 */
const LABEL = String.raw`[\p{L}\p{N}](?:[\p{L}\p{M}\p{N}-]*[\p{L}\p{M}\p{N}])?`;
const OCTET = String.raw`0*(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)`; // leading zeros too: `07` is a host's octet as written
const PATH = String.raw`(?:\/[^\s"'<>)\]]*)?`;
const CARRIED = new RegExp(
  [
    String.raw`[a-z][a-z0-9+.-]*:\/\/[^\s"'<>)\]]+`, // a URL of any scheme (https, ftp, ipfs, ...)
    String.raw`[\p{L}\p{M}\p{N}_.+-]+@[\p{L}\p{M}\p{N}_-]+(?:\.[\p{L}\p{M}\p{N}_-]+)+`, // an e-mail address
    String.raw`(?<![\p{L}\p{M}\p{N}_.])(?:${OCTET}\.){3}${OCTET}(?!\p{N}|\.\p{N})(?::\d{1,5})?${PATH}`, // a bare IPv4 address, with a port and a path or not
    String.raw`\[[0-9a-f:.]{2,45}\](?::\d{1,5})?${PATH}`, // a bracketed IPv6 address, with a port and a path or not
    String.raw`(?<![\p{L}\p{M}\p{N}_.])0x[0-9a-f]{1,8}(?![\p{L}\p{N}_])(?::\d{1,5})?${PATH}`, // a host as one hexadecimal number (0x7f000001)
    String.raw`(?<![\p{L}\p{M}\p{N}_])(?:${LABEL}\.)+(?:xn--[a-z0-9-]{1,59}|\p{L}[\p{L}\p{M}]{1,23})(?![\p{L}\p{M}\p{N}_])${PATH}`, // a bare domain (a punycode top level too), with or without www. and a path
    String.raw`\b[A-Z]{2}\d{2}(?:[ -]?[A-Z0-9]{4}){2,7}(?:[ -]?[A-Z0-9]{1,4})?\b`, // an IBAN, in groups of four or not
    String.raw`\b\d{8,}\b|\b\d{4}(?:[ -]\d{4}){2,4}\b`, // an account or card number, whole or in groups of four
  ].join('|'),
  'giu',
);

/**
 * Text as the patterns read it: NFKC (full-width letters and digits, and most look-alike dots,
 * are the ASCII ones), and the ideographic full stop (`。`, as `．` and `｡` are read too) a dot,
 * as browsers read it in a host (`evil。example` opens `evil.example`). Not next to Chinese,
 * Japanese or Korean text, where it is the full stop that ends a sentence with no space after it:
 * read as a dot there, every message of two sentences would carry a "domain".
 */
function normalised(text: string): string {
  return text
    .replace(IGNORABLE, '')
    .replace(/[\uFF0E\uFF61]/gu, '\u3002')
    .normalize('NFKC')
    .replace(LINK_STOP, '.');
}
/** Characters a host parser drops (a soft hyphen, a zero-width space): `evil.\u00ADexample` opens `evil.example`. */
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
const CJK = String.raw`[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]`;
const LINK_STOP = new RegExp(String.raw`(?<!${CJK})\u3002(?!${CJK})`, 'gu');

export function carriedOut(
  state: RunState,
  args: unknown,
  narrative: Set<string>,
  trusted: Set<string>,
  signedNotes: string[],
): { token: string; message: string }[] {
  if (!args || typeof args !== 'object' || Array.isArray(args)) return [];
  // A fact vouches for a value it is, not for text it happens to contain (a channel whose name
  // someone wrote to carry a link); a person's signed words and the run's goal vouch for what they
  // say as written: a link or address among their words, never a shorter one inside it
  // (`https://portal.mybank.com` is not said by a note that says `https://portal.mybank.com.au`).
  const lowered = (t: string) => normalised(t).toLowerCase();
  // Read only once a text carries something: most bodies carry no link, and every turn checks them.
  let trustedValues: Set<string> | undefined;
  let trustedTexts: string[] | undefined;
  // ...so a link inside a longer fact is carried text, as if quoted (read only to say where a token came from).
  let untrusted: string[] | undefined;
  const out: { token: string; message: string }[] = [];
  for (const [key, value] of Object.entries(args as Record<string, unknown>)) {
    if (!narrative.has(key)) continue;
    for (const text of textsOf(value)) {
      for (const match of normalised(text).match(CARRIED) ?? []) {
        const token = match.replace(/[.,;:!?]+$/, '');
        const lower = token.toLowerCase();
        trustedValues ??= new Set([...trusted].map(lowered));
        trustedTexts ??= [...signedNotes, state.goal].map(lowered);
        if (trustedValues.has(lower) || trustedTexts.some((t) => saysAsWritten(t, lower)) || out.some((o) => o.token === token)) continue;
        untrusted ??= [...untrustedTexts(state), ...trusted].map(lowered);
        const where = untrusted.some((t) => t.includes(lower)) ? 'which only untrusted text supplied' : 'which no trusted source holds';
        out.push({
          token,
          message: `the ${key} carries ${JSON.stringify(token).slice(0, 80)}, ${where}; a link, address or account number may leave only from a trusted source`,
        });
      }
    }
  }
  return out;
}

/**
 * Every text a narrative argument carries, however it nests: its strings, the keys of its objects
 * and its numbers as written (a list of lines, or an object of parts, is text that leaves too).
 * Walked without recursion, so no depth of nesting throws.
 */
function textsOf(value: unknown): string[] {
  const out: string[] = [];
  const pending: unknown[] = [value];
  for (let i = 0; i < pending.length; i++) {
    const v = pending[i];
    if (typeof v === 'string') out.push(v);
    else if (typeof v === 'number') out.push(String(v));
    else if (Array.isArray(v)) for (const item of v as unknown[]) pending.push(item);
    else if (v && typeof v === 'object') for (const [k, item] of Object.entries(v)) pending.push(k, item);
  }
  return out;
}

/** Text the run holds from outside: what reads quoted, and unsigned notes. */
export function untrustedTexts(state: RunState): string[] {
  const notes = state.transcript.flatMap((t) => (t.kind === 'note' && !t.trusted ? [t.text] : []));
  return [...state.evidence.flatMap((e) => e.quoted), ...notes];
}
