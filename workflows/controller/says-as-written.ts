// Whether a text says some words as written: the one reading of "a person's words hold this value"
// that a plan's quote (cited-sources.ts) and a link in a message (carried-text.ts) both rely on.
// It imports nothing, so either may use it without stacking the controller's imports.

/**
 * Whether `text` says `words` as written: a whole word or run of words, set off by spaces (and
 * quotation marks, brackets or the punctuation that ends a clause), never a part of a longer one.
 * "Bob" is not in "Bobby", "bob@x.com" not in "alice.bob@x.com", "bob@x.co" not in "bob@x.co.uk".
 */
export function saysAsWritten(text: string, words: string): boolean {
  if (words.trim() !== words || words === '' || words.length > 320) return false;
  for (let at = text.indexOf(words); at >= 0; at = text.indexOf(words, at + 1)) {
    if (setOff(text, at, -1, OPENING) && setOff(text, at + words.length, 1, CLOSING)) return true;
  }
  return false;
}
/** What may stand just before quoted words (after a space or the start), and just after them (before a space or the end). */
const OPENING = '(["\'“‘<';
const CLOSING = ')]"\'”’>,;:.!?';

/** Whether, from `at` in direction `step`, past any of `marks`, the text ends or a space follows: the words are whole there. */
function setOff(text: string, at: number, step: -1 | 1, marks: string): boolean {
  let i = step < 0 ? at - 1 : at;
  while (i >= 0 && i < text.length && marks.includes(text[i] as string)) i += step;
  return i < 0 || i >= text.length || /\s/u.test(text[i] as string);
}
