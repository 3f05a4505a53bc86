// No file of the project imports the Temporal SDK's internals (`@temporalio/<package>/lib/internal-*`):
// they change without notice between SDK releases, so code on them can break in a patch release
// the project did not choose. What they were used for has a public way: a start's settings are
// read back from its memo (client/start-settings.ts), a start event is decoded with the client's
// own data converter (client/start-input.ts). The bench and the tests are held to it too.
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const HERE = fileURLToPath(import.meta.url);
const ROOT = join(dirname(HERE), '..', '..');
/**
 * Not the project's code: dependencies, build output, caches (the AgentDojo venv among them, some
 * 20,000 files, which may be mid-install while this runs), and this file (which names the pattern).
 */
const SKIP_DIRS = new Set(['node_modules', 'dist', 'coverage', '.git', '.temporal', '.world', '.agent', '.agentdojo', '.eval']);
const CODE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const INTERNAL = /@temporalio\/[a-z-]+\/lib\/internal-[a-z-]+/;

async function codeFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) files.push(...(await codeFiles(join(dir, entry.name))));
    } else if (CODE.test(entry.name)) files.push(join(dir, entry.name));
  }
  return files;
}

describe('no Temporal SDK internals', () => {
  it('no project file imports @temporalio/*/lib/internal-*', async () => {
    const files = (await codeFiles(ROOT)).filter((f) => f !== HERE);
    // The walk found the project, not an empty directory: the start path is among the files read.
    expect(files.map((f) => relative(ROOT, f))).toContain(join('client', 'start-run.ts'));
    const offenders: string[] = [];
    for (const file of files) {
      const lines = (await readFile(file, 'utf8')).split('\n');
      lines.forEach((line, i) => {
        if (INTERNAL.test(line)) offenders.push(`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(offenders).toEqual([]);
  });
});
