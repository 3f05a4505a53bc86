// Keeps one observation under its contract's byte cap without breaking its shape: the longest
// strings are cut and long arrays trimmed, each with a visible marker, and the full payload is
// kept aside under a content hash so nothing is silently dropped.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Shrunk {
  output: unknown;
  truncated?: { originalBytes: number; ref: string };
}

export function shrinkToCap(output: unknown, maxBytes: number, blobDir: string): Shrunk {
  const full = JSON.stringify(output) ?? 'null';
  const originalBytes = Buffer.byteLength(full);
  if (originalBytes <= maxBytes) return { output };
  const ref = `sha256:${createHash('sha256').update(full).digest('hex').slice(0, 32)}`;
  mkdirSync(blobDir, { recursive: true });
  writeFileSync(join(blobDir, `${ref.slice(7)}.json`), full);

  let value: unknown = JSON.parse(full);
  for (let round = 0; round < 50 && Buffer.byteLength(JSON.stringify(value)) > maxBytes; round++) {
    const over = Buffer.byteLength(JSON.stringify(value)) - maxBytes;
    value = cutLargest(value, over, ref);
  }
  return { output: value, truncated: { originalBytes, ref } };
}

/** Cuts the single largest string or array in the value by at least `over` bytes. */
function cutLargest(value: unknown, over: number, ref: string): unknown {
  let best: { path: (string | number)[]; size: number } | undefined;
  const visit = (v: unknown, path: (string | number)[]): void => {
    const size = Buffer.byteLength(JSON.stringify(v) ?? '');
    if ((typeof v === 'string' || Array.isArray(v)) && (!best || size > best.size)) best = { path, size };
    if (Array.isArray(v)) v.forEach((item, i) => visit(item, [...path, i]));
    else if (v && typeof v === 'object') for (const [k, item] of Object.entries(v)) visit(item, [...path, k]);
  };
  visit(value, []);
  if (!best) return value;
  const marker = `…[truncated; full output ${ref}]`;
  const replace = (v: unknown, path: (string | number)[]): unknown => {
    if (path.length === 0) {
      if (typeof v === 'string') return v.slice(0, Math.max(0, v.length - over - marker.length - 16)) + marker;
      if (Array.isArray(v)) return [...v.slice(0, Math.max(0, Math.floor(v.length / 2))), marker];
      return v;
    }
    const [head, ...rest] = path;
    if (Array.isArray(v)) return v.map((item, i) => (i === head ? replace(item, rest) : item));
    const obj = v as Record<string, unknown>;
    return { ...obj, [head as string]: replace(obj[head as string], rest) };
  };
  return replace(value, best.path);
}
