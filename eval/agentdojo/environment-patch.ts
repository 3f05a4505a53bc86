// Why this exists: the runner's `--environment-patch FILE`, an environment an attacker has touched
// (an extra incoming transaction from the attacker's IBAN, an extra message in a channel), read and
// checked where it enters the runner. The file is a JSON object keyed by suite; each value is a
// JSON object the bridge deep-merges into that suite's environment before each pair (objects key
// by key, lists appended, scalars replaced) and re-validates with AgentDojo's own model, so
// whether the patch fits the environment is the bridge's to say (environment_patch.py); the
// runner asks it once per suite before any pair runs (checkPatchFits). A bad file is a value
// naming the file and the problem, never a throw; a patch the bridge refuses is a PatchRefused
// naming both.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { BridgeError, type BridgeClient } from './client.js';
import { SUITES, type Suite } from './run-pair.js';

/** What the bridge merges into one suite's environment: a JSON object of the environment's fields. */
export type SuitePatch = Record<string, unknown>;
/** The file's content: per suite named, its patch. */
export type EnvironmentPatch = Partial<Record<Suite, SuitePatch>>;

const what = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`);

const SuitePatchSchema = z.record(z.string(), z.unknown(), {
  error: (issue) => `must be a JSON object of the environment's fields, got ${what(issue.input)}`,
});
const EnvironmentPatchSchema = z.strictObject(
  Object.fromEntries(SUITES.map((s) => [s, SuitePatchSchema.optional()])) as Record<Suite, z.ZodOptional<typeof SuitePatchSchema>>,
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown suite ${issue.keys.join(', ')} (known: ${SUITES.join(', ')})`
        : `must be a JSON object keyed by suite (${SUITES.join(', ')}), got ${what(issue.input)}`,
  },
);

export type PatchRead = { ok: true; patch: EnvironmentPatch } | { ok: false; error: string };

/** A patch file's text, checked; `file` only names it in the error. */
export function parseEnvironmentPatch(text: string, file: string): PatchRead {
  const fail = (problem: string): PatchRead => ({ ok: false, error: `--environment-patch ${file}: ${problem}` });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return fail(`not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  const parsed = EnvironmentPatchSchema.safeParse(json);
  if (!parsed.success) return fail(parsed.error.issues.map((i) => (i.path.length > 0 ? `${i.path.join('.')} ${i.message}` : i.message)).join('; '));
  return { ok: true, patch: parsed.data };
}

/** The patch in `file`, read and checked. */
export function readEnvironmentPatch(file: string): PatchRead {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, error: `--environment-patch ${file}: cannot read it (${code ?? (err instanceof Error ? err.message : String(err))})` };
  }
  return parseEnvironmentPatch(text, file);
}

/** The bridge refused the patch for a suite: its message names the file, the suite's environment and the field. */
export class PatchRefused extends Error {
  override readonly name = 'PatchRefused';
  constructor(
    readonly file: string,
    readonly suite: Suite,
    readonly reason: string,
  ) {
    super(`--environment-patch ${file}: ${reason}`);
  }
}

/**
 * Opens (and closes) one session per suite the run covers and the patch names, on the suite's first
 * user task, so a patch that does not fit is refused once, before any pair, instead of failing every
 * pair. Throws PatchRefused for the first suite whose environment the bridge says it does not fit.
 */
export async function checkPatchFits(bridge: BridgeClient, given: { file: string; patch: EnvironmentPatch }, suites: readonly Suite[]): Promise<void> {
  for (const suite of suites) {
    const environmentPatch = given.patch[suite];
    if (!environmentPatch) continue;
    const [userTask] = (await bridge.tasks(suite)).userTasks;
    if (!userTask) continue;
    const session = `patch-check-${suite}-${randomUUID().slice(0, 8)}`;
    try {
      await bridge.open(session, suite, userTask, null, { environmentPatch });
    } catch (err) {
      if (err instanceof BridgeError && err.status === 400) throw new PatchRefused(given.file, suite, err.reason);
      throw err;
    }
    await bridge.close(session);
  }
}
