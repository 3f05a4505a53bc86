// Why this exists: one typed client for the bridge (bridge.py), shared by the domains'
// implementations, the models and the runner. Every answer crosses a process boundary, so each is
// parsed with a zod schema; a bridge that answers something else is an error with its text. A
// session is opened with the attack's injections and, if given, a patch of the environment
// (environment-patch.ts), which the bridge refuses (400, its reason in the error) when it does not fit.
import { z } from 'zod';

export const GroundTruthCall = z.object({ function: z.string(), args: z.record(z.string(), z.unknown()) });
export type GroundTruthCall = z.infer<typeof GroundTruthCall>;

export const SessionInfo = z.object({
  prompt: z.string(),
  groundTruth: z.array(GroundTruthCall),
  groundTruthOutput: z.string(),
  injectionGoal: z.string().nullable(),
  injectionGroundTruth: z.array(GroundTruthCall),
  injections: z.record(z.string(), z.string()),
});
export type SessionInfo = z.infer<typeof SessionInfo>;

export const CallAnswer = z.object({ ok: z.boolean(), result: z.unknown(), error: z.string().nullable(), repeated: z.boolean().optional() });
export type CallAnswer = z.infer<typeof CallAnswer>;
const ReadbackAnswer = z.union([z.object({ applied: z.literal(true), result: z.unknown() }), z.object({ applied: z.literal(false) })]);
export const Verdict = z.object({
  utility: z.boolean(),
  /** AgentDojo's security(): true when the injection task was accomplished (the attack succeeded). */
  security: z.boolean().nullable(),
  calls: z.array(z.object({ tool: z.string(), args: z.unknown(), key: z.string().nullable(), ok: z.boolean(), error: z.string().nullable() })),
});
export type Verdict = z.infer<typeof Verdict>;
const Tasks = z.object({ userTasks: z.array(z.string()), injectionTasks: z.array(z.string()), tools: z.array(z.string()), attacks: z.array(z.string()) });

/** An AgentDojo attack by its registry name, or injection texts per vector (`*`: every vector the task shows). */
export type Attack = { name: string } | { texts: Record<string, string> };

/** How a session's environment is made: the attack's injections (with an injection task), and a patch merged into it. */
export interface SessionOptions {
  attack?: Attack;
  /** A JSON object deep-merged into the suite's environment before the user task's own set-up. */
  environmentPatch?: Record<string, unknown>;
}

/** The bridge answered with an error status: `reason` is its own message (a patch that does not fit, an unknown task). */
export class BridgeError extends Error {
  override readonly name = 'BridgeError';
  constructor(
    readonly path: string,
    readonly status: number,
    readonly reason: string,
  ) {
    super(`bridge ${path}: ${status} ${reason.slice(0, 2_000)}`);
  }
}

const ErrorAnswer = z.object({ error: z.string() });

export class BridgeClient {
  constructor(readonly url: string) {}

  private async post<T>(path: string, body: unknown, schema: z.ZodType<T>): Promise<T> {
    const res = await fetch(`${this.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new BridgeError(path, res.status, reasonOf(text));
    const parsed = schema.safeParse(JSON.parse(text));
    if (!parsed.success) throw new Error(`bridge ${path} answered an unexpected shape: ${parsed.error.message.slice(0, 300)}`);
    return parsed.data;
  }

  tasks(suite: string) {
    return this.post('/tasks', { suite }, Tasks);
  }
  open(session: string, suite: string, userTask: string, injectionTask: string | null, options: SessionOptions = {}) {
    return this.post('/session', { session, suite, userTask, injectionTask, attack: options.attack, environmentPatch: options.environmentPatch }, SessionInfo);
  }
  call(session: string, tool: string, args: unknown, key?: string) {
    return this.post('/call', { session, tool, args, key }, CallAnswer);
  }
  readback(session: string, key: string) {
    return this.post('/readback', { session, key }, ReadbackAnswer);
  }
  judge(session: string, output: string) {
    return this.post('/judge', { session, output }, Verdict);
  }
  close(session: string) {
    return this.post('/close', { session }, z.object({ ok: z.boolean() }));
  }
}

/** The bridge's `{error}` message, or its text as it came. */
function reasonOf(text: string): string {
  try {
    const parsed = ErrorAnswer.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data.error;
  } catch {
    // not JSON: the text itself
  }
  return text;
}
