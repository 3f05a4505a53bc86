// An approver signs what the card shows, and Unicode lets written text pass for other text: a
// Cyrillic a (U+0430) in 'gmail.com', a right-to-left override that reverses an account number's tail, a
// zero-width space inside an id. The display lines (workflows/controller/display.ts) strip only
// control characters, so the last step before a person reads a value of the call is here: every
// UTF-16 unit outside printable ASCII is shown as a `\uXXXX` escape beside a badge, and two values
// that look alike on the card are alike. Plain ASCII is shown as it is. Only what is shown
// changes: the card's data-call, from which the browser computes the digest it signs, stays raw.
import { html } from 'hono/html';
import type { Html } from './layout.js';

const OUTSIDE_ASCII = /[^\x20-\x7e]/;
const escapeUnit = (unit: string): string => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** Whether any character of the text is outside printable ASCII. */
export function hasNonAscii(text: string): boolean {
  return OUTSIDE_ASCII.test(text);
}

/**
 * The text with every unit outside printable ASCII as `\uXXXX`. Backslashes are doubled whenever
 * something was escaped, so `\u0430` typed in ASCII beside a real non-ASCII letter cannot pass
 * for the escape of a Cyrillic a; text that is all ASCII comes back unchanged (and gets no badge).
 */
export function asciiText(text: string): string {
  if (!hasNonAscii(text)) return text;
  return text.replace(/\\/g, '\\\\').replace(new RegExp(OUTSIDE_ASCII.source, 'g'), escapeUnit);
}

/**
 * JSON as text with every unit outside printable ASCII as `\uXXXX`: JSON's own escape, so the
 * text is still the JSON of the same value. JSON.stringify already escapes backslashes and the C0
 * controls inside strings, so the only newlines left are its indentation's, which are kept.
 */
export function asciiJson(json: string): string {
  return json.replace(/[^\x20-\x7e\n]/g, escapeUnit);
}

export const NON_ASCII_BADGE = 'contains non-ASCII characters';
const BADGE_TITLE = 'every character outside plain ASCII is shown as a \\uXXXX escape (its UTF-16 code)';

/** The badge beside a value shown escaped. */
export function nonAsciiBadge(): Html {
  return html`<span class="badge bad non-ascii" title="${BADGE_TITLE}">${NON_ASCII_BADGE}</span>`;
}

/** A value of the call as the card shows it: escaped, and marked when anything was. */
export function shownValue(text: string): Html {
  return hasNonAscii(text) ? html`${asciiText(text)} ${nonAsciiBadge()}` : html`${text}`;
}

/** The same in a `<code>`, the badge outside it. */
export function shownCode(text: string): Html {
  return hasNonAscii(text) ? html`<code>${asciiText(text)}</code> ${nonAsciiBadge()}` : html`<code>${text}</code>`;
}
