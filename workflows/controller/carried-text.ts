// Free text an argument carries out: a message body or a reason is the model's own words, but a
// link, an address or an account number inside it is data, and leaves only from a trusted source.
// The narrative check of provenance.ts; kept apart because its patterns are the part that grows.
import type { RunState } from './state.js';

/**
 * What a narrative argument (a message body, a reason) may not carry out: a link (any scheme, or
 * a bare domain), an address or an account-like number (whole, or in groups of four, as IBANs
 * and cards are written) that no trusted source vouches for. The model's own words are its own,
 * and a value a trusted source holds may be quoted; but a link read on a web page (or one the
 * model made up, or read where the engine kept only part of the text) pasted into a message to a
 * colleague is data leaving on someone else's instruction.
 */
const CARRIED = new RegExp(
  [
    String.raw`[a-z][a-z0-9+.-]*:\/\/[^\s"'<>)\]]+`, // a URL of any scheme (https, ftp, ipfs, ...)
    String.raw`[\w.+-]+@[\w-]+(?:\.[\w-]+)+`, // an e-mail address
    String.raw`\b(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,24}\b(?:\/[^\s"'<>)\]]*)?`, // a bare domain, with or without www. and a path
    String.raw`\b[A-Z]{2}\d{2}(?:[ -]?[A-Z0-9]{4}){2,7}(?:[ -]?[A-Z0-9]{1,4})?\b`, // an IBAN, in groups of four or not
    String.raw`\b\d{8,}\b|\b\d{4}(?:[ -]\d{4}){2,4}\b`, // an account or card number, whole or in groups of four
  ].join('|'),
  'gi',
);

export function carriedOut(
  state: RunState,
  args: unknown,
  narrative: Set<string>,
  trusted: Set<string>,
  signedNotes: string[],
): { token: string; message: string }[] {
  if (!args || typeof args !== 'object' || Array.isArray(args)) return [];
  // A fact vouches for a value it is, not for text it happens to contain (a channel whose name
  // someone wrote to carry a link); a person's signed words and the run's goal vouch for what they say.
  const trustedValues = new Set([...trusted].map((t) => t.toLowerCase()));
  const trustedTexts = [...signedNotes, state.goal].map((t) => t.toLowerCase());
  // ...so a link inside a longer fact is carried text, as if quoted.
  const untrusted = [...untrustedTexts(state), ...trusted];
  const out: { token: string; message: string }[] = [];
  for (const [key, value] of Object.entries(args as Record<string, unknown>)) {
    if (!narrative.has(key) || typeof value !== 'string') continue;
    for (const match of value.match(CARRIED) ?? []) {
      const token = match.replace(/[.,;:!?]+$/, '');
      const lower = token.toLowerCase();
      if (trustedValues.has(lower) || trustedTexts.some((t) => t.includes(lower)) || out.some((o) => o.token === token)) continue;
      const where = untrusted.some((t) => t.toLowerCase().includes(lower)) ? 'which only untrusted text supplied' : 'which no trusted source holds';
      out.push({
        token,
        message: `the ${key} carries ${JSON.stringify(token).slice(0, 80)}, ${where}; a link, address or account number may leave only from a trusted source`,
      });
    }
  }
  return out;
}

/** Text the run holds from outside: what reads quoted, and unsigned notes. */
export function untrustedTexts(state: RunState): string[] {
  const notes = state.transcript.flatMap((t) => (t.kind === 'note' && !t.trusted ? [t.text] : []));
  return [...state.evidence.flatMap((e) => e.quoted), ...notes];
}
