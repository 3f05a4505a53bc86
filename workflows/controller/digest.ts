// A short, deterministic fingerprint of a proposed call, so an approval given for one set of
// arguments can never be applied to another. FNV-1a over canonical JSON: not a security hash,
// the update validator and the workflow's own state are the authority; it catches mix-ups.
import { callSignature } from './loop-guard.js';

export function callDigest(tool: string, args: unknown): string {
  const text = callSignature(tool, args);
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
