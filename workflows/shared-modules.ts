// Modules the worker evaluates once and shares between all runs (Temporal's preloadModules),
// instead of evaluating them again for every run it starts: zod, which every schema the engine
// and its domains define is built with, the Ed25519 and SHA-256 code that checks approvals, and
// the cache the engine's own schemas are built in once per worker (worker-scoped.ts).
// Measured on the bench, evaluating them was about a third of what starting a run cost the
// worker (zod ~3 ms, noble ~1.5 ms of ~11 ms).
//
// The SDK deep-freezes shared modules once this file has run, so whatever zod sets up lazily,
// on first use, is set up here while it can still be written: its default locale and memoizer
// (on the first schema) and whether it may compile parsers (on the first object schema). The
// engine's own schemas are not frozen here: they live in worker-scoped.ts's cache, which no
// export reaches, and are built on a worker's first run.
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha256 } from '@noble/hashes/sha2.js';
import * as zod from 'zod';
import { z } from 'zod';
import { workerScoped } from './worker-scoped.js';

const warmUp = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('a'), at: z.iso.datetime({ offset: true }), n: z.number().int() }),
  z.object({ kind: z.literal('b'), tags: z.array(z.string()).optional() }),
]);
warmUp.safeParse({ kind: 'a', at: '2025-01-01T00:00:00Z', n: 1 });
warmUp.safeParse({ kind: 'c' });

// Signing and checking once fills the curve's lookup tables before they are frozen. A fixed
// key: nothing here is secret, and the same bytes every time.
const key = sha256(new TextEncoder().encode('shared-modules warm-up'));
const message = new Uint8Array([1, 2, 3]);
ed25519.verify(ed25519.sign(message, key), message, ed25519.getPublicKey(key), { zip215: false });

/**
 * Both namespaces, whole: the bundler skips re-exporting modules that nobody reads, and the
 * engine's modules import zod both ways, so anything less would leave parts of it per run.
 */
export const shared = { zod, z, ed25519, sha256, workerScoped };
