// Schemas built once per worker instead of once per run. Temporal evaluates a bundle's modules
// afresh for every run it starts; for the engine's zod schemas that was about a sixth of what
// the engine cost the worker on the bench (6 to 7 ms a run). This module is preloaded with
// shared-modules.ts, so every run on a worker sees the one cache below.
//
// Why not preload the schema modules themselves: the SDK deep-freezes what shared modules
// export, and zod completes its schemas lazily, on first use, by writing to them; frozen, they
// throw. A value kept in this closure is reachable from no export, so it is not frozen.
//
// What may be built here: pure descriptions of data, zod schemas made of other schemas and
// constants. The value is shared by every run on the worker, replays included, so a builder must
// not capture anything a run owns, and must not read the workflow's clock or random numbers (the
// run that happens to build it would consume them, and its replay would not). Parsing does not
// change what a schema accepts, so sharing one cannot make two runs, or a run and its replay,
// disagree.
const built = new Map<string, { value: unknown; builder: string }>();

/**
 * The value `build` returns, built once per worker under `key` (unique engine-wide: `state.RunState`).
 * A key taken by two different builders would hand one of them the other's value, silently: the
 * builder's source text is kept with the value and a different one under the same key throws.
 * (Each run evaluates the modules again, so the same call site arrives with a new closure of the
 * same source; that is the one case that must match.)
 */
export function workerScoped<T>(key: string, build: () => T): T {
  const source = build.toString();
  const entry = built.get(key);
  if (entry) {
    if (entry.builder !== source) throw new Error(`workerScoped key ${key} is used by two different builders; give each its own key`);
    return entry.value as T;
  }
  const value = build();
  built.set(key, { value, builder: source });
  return value;
}

/** What `key` holds on this worker, without building it (tests of the cache itself). */
export function peekWorkerScoped(key: string): unknown {
  return built.get(key)?.value;
}
