// The fenced code blocks of the pages that show commands (the README and the docs its sections
// moved to), as the tests that hold those pages to the code read them. Every fenced block on a
// checked page is preceded by a marker comment saying how it is checked:
//   <!-- readme-test: run -->            test/readme runs each command as printed
//   <!-- readme-test: starter -->        test/package/starter.test.ts runs it in a copy of the starter
//   <!-- readme-test: file PATH -->      the block is the file at PATH, verbatim (ts blocks)
//   <!-- readme-test: skip REASON -->    not run, and the reason says why (no Temporal Cloud here)
// A block without a marker is an error, so a new command cannot slip in unchecked.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root: page paths below are relative to it. */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The pages whose blocks are checked, in the order their `run` commands are run: the README
 * starts `npm run dev` and a run, and docs/operating.md goes on with the runs it left. A page
 * that gains a command block belongs here.
 */
export const CHECKED_PAGES = ['README.md', 'docs/operating.md', 'docs/starter.md', 'docs/temporal-server.md', 'docs/alerts.md', 'docs/kubernetes.md'];

export interface Block {
  /** The page it is on, relative to the repository's root. */
  page: string;
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

/** A page's fenced blocks, each with the marker that precedes it. */
export function blocksOf(page: string, text = readFileSync(join(repoRoot, page), 'utf8')): Block[] {
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
    blocks.push({
      page,
      lang,
      mode: marker?.mode ?? 'missing',
      arg: marker?.arg ?? '',
      body: body.length ? `${body.join('\n')}\n` : '',
      line: start + 1,
      section,
    });
    marker = undefined;
  }
  return blocks;
}

/** Every checked page's blocks, page after page in the order of `CHECKED_PAGES`. */
export function checkedBlocks(): Block[] {
  return CHECKED_PAGES.flatMap((page) => blocksOf(page));
}

/** A block's commands: one per line, comments and blank lines dropped (a trailing `# ...` is a comment). */
export function commandsOf(block: Block): string[] {
  return block.body
    .split('\n')
    .map((l) => l.replace(/(^|\s+)#\s.*$/, '').trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}
