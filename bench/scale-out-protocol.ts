// The messages between the `scale-out` section and its worker processes (IPC channel). Both
// sides parse what they receive: a worker built from other code must fail here, in words.
import { z } from 'zod';

export const BenchRequest = z.discriminatedUnion('type', [
  /** Hand over the stamps, CPU time and peak memory since the last report. */
  z.strictObject({ type: z.literal('report') }),
  /** Shut the worker down gracefully; it exits when its tasks are done. */
  z.strictObject({ type: z.literal('stop') }),
]);
export type BenchRequest = z.infer<typeof BenchRequest>;

export const WorkerReport = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('ready'), pid: z.number().int() }),
  z.strictObject({
    type: z.literal('report'),
    pid: z.number().int(),
    /** The process's CPU time since it started (user + system, all threads, Rust core included). */
    cpuMs: z.number(),
    rssBytes: z.number(),
    peakRssBytes: z.number(),
    /** Wall-clock time of every `propose` call since the last report, per case id. */
    stamps: z.record(z.string(), z.array(z.number())),
  }),
]);
export type WorkerReport = z.infer<typeof WorkerReport>;
