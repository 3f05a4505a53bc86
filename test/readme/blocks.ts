// The README's fenced code blocks, as the tests that hold the README to the code read them.
// Every ```sh and ```ts block is preceded by a marker comment saying how it is checked:
//   <!-- readme-test: run -->            test/readme runs each command as printed
//   <!-- readme-test: starter -->        test/package/starter.test.ts runs it in a copy of the starter
//   <!-- readme-test: file PATH -->      the block is the file at PATH, verbatim (ts blocks)
//   <!-- readme-test: skip REASON -->    not run, and the reason says why (no Temporal Cloud here)
// A block without a marker is an error, so a new command cannot slip in unchecked.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const readmePath = fileURLToPath(new URL('../../README.md', import.meta.url));

export interface Block {
  lang: string;
  /** `run`, `starter`, `file`, `skip`, or `missing` when no marker precedes the block. */
  mode: 'run' | 'starter' | 'file' | 'skip' | 'missing';
  /** The path for `file`, the reason for `skip`. */
  arg: string;
  body: string;
  /** 1-based line of the opening fence, for messages. */
  line: number;
  /** The nearest heading above the block. */
  section: string;
}

export function readmeBlocks(text = readFileSync(readmePath, 'utf8')): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  let section = '';
  let marker: { mode: Block['mode']; arg: string } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (/^#{1,6} /.test(line)) section = line.replace(/^#+ /, '');
    const m = /^<!-- readme-test: (run|starter|file|skip)\s*(.*?)\s*-->$/.exec(line.trim());
    if (m) {
      marker = { mode: m[1] as Block['mode'], arg: m[2] ?? '' };
      continue;
    }
    const fence = /^```(\S*)\s*$/.exec(line);
    if (!fence) {
      if (line.trim() !== '') marker = undefined;
      continue;
    }
    const lang = fence[1] ?? '';
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i] ?? '');
    blocks.push({ lang, mode: marker?.mode ?? 'missing', arg: marker?.arg ?? '', body: body.length ? `${body.join('\n')}\n` : '', line: start + 1, section });
    marker = undefined;
  }
  return blocks;
}

/** A block's commands: one per line, comments and blank lines dropped (a trailing `# ...` is a comment). */
export function commandsOf(block: Block): string[] {
  return block.body
    .split('\n')
    .map((l) => l.replace(/(^|\s+)#\s.*$/, '').trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}
