// The relative links of the README and the docs, as a reader follows them: a moved or renamed
// page, or a heading reworded, leaves a link that leads nowhere, and nothing else would notice.
// Links inside code (fenced blocks, `inline`) are text, not links, and web addresses are not
// followed here.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { repoRoot } from './blocks.js';

/** The pages whose links are checked: the README, DEVELOPERS.md and every page in docs/. */
export function linkedPages(): string[] {
  const docs = readdirSync(join(repoRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', 'DEVELOPERS.md', ...docs];
}

/** A page's prose: fenced blocks and inline code blanked out, so what they show is not taken for links or headings. */
function prose(text: string): string {
  return text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, (code) => code.replace(/[[\]()]/g, ' '));
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = (m[1] ?? '')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** The relative links on a page that reach no file, or no heading of the page they name. */
export function brokenLinks(page: string): string[] {
  const text = readFileSync(join(repoRoot, page), 'utf8');
  const broken: string[] = [];
  for (const m of prose(text).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const link = m[1] ?? '';
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue;
    const [path = '', anchor] = link.split('#');
    const target = path === '' ? join(repoRoot, page) : join(dirname(join(repoRoot, page)), decodeURIComponent(path));
    if (!existsSync(target)) {
      broken.push(`${page}: ${link} (no ${relative(repoRoot, target)})`);
      continue;
    }
    if (anchor !== undefined && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor)) {
      broken.push(`${page}: ${link} (no heading #${anchor} in ${relative(repoRoot, target)})`);
    }
  }
  return broken;
}
