// A workflow bundle kept on disk between a worker's starts. Bundling is webpack over the
// workflows module, the engine, zod and the SDK (265 modules for the examples): seconds of CPU,
// and on a busy host the better part of a minute, on every start. So a worker started with a
// workflows module looks in its cache first: a bundle there is used when every file that went
// into it (the bundle's own source map lists them) still has the content it had, and when the
// same bundler plugins made it. Otherwise it bundles, quietly (errors only), and keeps the result
// for the next start. Changing any workflow file, the engine or a plugin makes a new bundle; a
// team's own workflows are bundled on demand like the engine's.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BundlerPlugin } from '@temporalio/worker';
import { z } from 'zod';
import { bundleWorkflows } from './bundle.js';

/** Where bundles are kept unless the worker is told otherwise (AGENT_BUNDLE_CACHE). */
export const DEFAULT_BUNDLE_CACHE = join('.agent', 'bundles');

/** What the cache holds beside each bundle: the files that went into it, by content digest. */
const Manifest = z.strictObject({ code: z.string(), files: z.record(z.string(), z.string()) });

export interface CachedBundle {
  /** The bundle, as Worker.create's `workflowBundle` takes it. */
  codePath: string;
  /** True when the cache's bundle was still good; false when this call bundled. */
  reused: boolean;
}

/** The bundle of `workflowsPath` made with `plugins`' bundling, from the cache in `dir` when it is current. */
export async function cachedBundle(workflowsPath: string, options: { dir: string; plugins?: readonly BundlerPlugin[] }): Promise<CachedBundle> {
  const plugins = options.plugins ?? [];
  const name = digest(JSON.stringify([resolve(workflowsPath), plugins.map((p) => p.name)])).slice(0, 16);
  const manifestPath = join(options.dir, `${name}.json`);
  const kept = readManifest(manifestPath);
  if (kept && existsSync(join(options.dir, kept.code)) && Object.entries(kept.files).every(([file, hash]) => contentDigest(file) === hash)) {
    return { codePath: join(options.dir, kept.code), reused: true };
  }
  const { code } = await bundleWorkflows(workflowsPath, { plugins: [...plugins] });
  // A source that is gone once bundling is done (the bundler's own generated entrypoint) is not a file to watch.
  const files = Object.fromEntries(
    sourcesOf(code).flatMap((file) => {
      const hash = contentDigest(file);
      return hash === undefined ? [] : [[file, hash]];
    }),
  );
  const codeName = `${name}-${digest(code).slice(0, 16)}.js`;
  mkdirSync(options.dir, { recursive: true });
  // Whole files only: another worker starting at the same moment reads the old bundle or the new.
  writeWhole(join(options.dir, codeName), code);
  writeWhole(manifestPath, JSON.stringify({ code: codeName, files }));
  return { codePath: join(options.dir, codeName), reused: false };
}

/** The source files a bundle was made from, as its inline source map names them (absolute paths). */
function sourcesOf(code: string): string[] {
  // Found by position, not by a regular expression: the map is megabytes of base64, and a
  // backtracking match over it can exhaust V8's regexp stack (RangeError) on one run and not the next.
  const marker = 'sourceMappingURL=data:application/json;';
  const at = code.lastIndexOf(marker);
  const comma = at < 0 ? -1 : code.indexOf('base64,', at + marker.length);
  if (comma < 0) throw new Error('the workflow bundle has no inline source map to name its files');
  const map = JSON.parse(Buffer.from(code.slice(comma + 'base64,'.length).trim(), 'base64').toString('utf8')) as { sources?: unknown };
  const sources = Array.isArray(map.sources) ? map.sources.filter((s): s is string => typeof s === 'string' && s.startsWith('/')) : [];
  if (sources.length === 0) throw new Error('the workflow bundle names no source files');
  return sources;
}

function readManifest(path: string): z.infer<typeof Manifest> | undefined {
  try {
    const parsed = Manifest.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** A file's content digest; undefined when it is gone (so the bundle that used it is not current). */
function contentDigest(file: string): string | undefined {
  try {
    return digest(readFileSync(file));
  } catch {
    return undefined;
  }
}

function digest(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function writeWhole(path: string, text: string): void {
  const draft = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(draft, text);
  renameSync(draft, path);
}
