// Whether this test run includes a given file, so the global setup starts a file's slow
// provisioning early (the packed engine, the AgentDojo venv) only when that file will run: a
// developer running one other file does not pay for a build or a pip install it never uses.
import { resolve } from 'node:path';
import type { TestProject } from 'vitest/node';

/**
 * True when `file` (relative to the project's root) is among the files of this run. A run
 * without file filters is the whole suite. Should vitest stop exposing its filters, every file
 * counts as included: the early start is then wasted work on a filtered run, never a wrong one.
 */
export async function runIncludes(project: TestProject, file: string): Promise<boolean> {
  // Vitest keeps the command line's file filters here (not part of its typed API).
  const filters = (project.vitest as unknown as { filenamePattern?: unknown }).filenamePattern;
  if (!Array.isArray(filters) || filters.length === 0) return true;
  const specs = await project.vitest.globTestSpecifications(filters.map(String));
  const wanted = resolve(project.config.root, file);
  return specs.some((s) => s.moduleId === wanted);
}
