// `npm run codec-server`: the Web UI's codec endpoint (worker/codec-server.ts) as a process,
// configured from the environment like every other process of ours:
//   AGENT_PAYLOAD_KEYS       the key-ring file the workers use (required)
//   AGENT_CODEC_TOKEN        the bearer token callers must send (or AGENT_CODEC_TOKEN_FILE)
//   AGENT_CODEC_ORIGINS      comma-separated Web UI origins (default: the dev server's UI)
//   AGENT_CODEC_PORT         default 8089;  AGENT_CODEC_HOST  a loopback address, default 127.0.0.1
// Prints `CODEC_READY url=...` once it listens; stops on SIGTERM / SIGINT.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { CodecServerConfigError, startCodecServer, type CodecServerOptions } from './codec-server.js';
import { loadPayloadCodec } from './payload-codec.js';
import { PAYLOAD_KEYS_ENV, PayloadKeyRingError } from './payload-keys.js';

/** The origins of `temporal server start-dev`'s Web UI: whichever host the operator typed. */
export const DEV_UI_ORIGINS = ['http://localhost:8233', 'http://127.0.0.1:8233'];
export const DEFAULT_CODEC_PORT = 8089;

const Origin = z.url({ protocol: /^https?$/ }).refine((u) => {
  const url = new URL(u);
  return url.pathname === '/' && !url.search && !url.hash && !url.username;
}, 'an origin is scheme://host[:port], no path');
const Env = z.object({
  AGENT_CODEC_TOKEN: z.string().min(16, 'AGENT_CODEC_TOKEN must be at least 16 characters').optional(),
  AGENT_CODEC_TOKEN_FILE: z.string().min(1).optional(),
  AGENT_CODEC_ORIGINS: z.string().optional(),
  AGENT_CODEC_PORT: z.coerce.number().int().min(0).max(65_535).optional(),
  AGENT_CODEC_HOST: z.string().optional(),
});

export function codecServerOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): CodecServerOptions {
  const parsed = Env.safeParse(env);
  if (!parsed.success) throw new CodecServerConfigError(`codec server: ${parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`).join('; ')}`);
  const e = parsed.data;
  const codec = loadPayloadCodec(env);
  if (!codec) throw new CodecServerConfigError(`codec server: ${PAYLOAD_KEYS_ENV} must name the key-ring file the workers use`);
  const token = e.AGENT_CODEC_TOKEN ?? (e.AGENT_CODEC_TOKEN_FILE ? readToken(e.AGENT_CODEC_TOKEN_FILE) : undefined);
  if (!token) throw new CodecServerConfigError('codec server: set AGENT_CODEC_TOKEN (or AGENT_CODEC_TOKEN_FILE); it never runs open');
  const origins = e.AGENT_CODEC_ORIGINS
    ? e.AGENT_CODEC_ORIGINS.split(',')
        .map((o) => o.trim())
        .filter(Boolean)
    : DEV_UI_ORIGINS;
  for (const origin of origins) {
    if (!Origin.safeParse(origin).success)
      throw new CodecServerConfigError(`codec server: AGENT_CODEC_ORIGINS: "${origin}" is not an origin (scheme://host[:port])`);
  }
  return { codec, token, origins, host: e.AGENT_CODEC_HOST ?? '127.0.0.1', port: e.AGENT_CODEC_PORT ?? DEFAULT_CODEC_PORT };
}

function readToken(path: string): string {
  let token: string;
  try {
    token = readFileSync(path, 'utf8').trim();
  } catch {
    throw new CodecServerConfigError(`codec server: cannot read AGENT_CODEC_TOKEN_FILE ${path}`);
  }
  if (token.length < 16) throw new CodecServerConfigError(`codec server: the token in ${path} must be at least 16 characters`);
  return token;
}

async function main(): Promise<void> {
  let server;
  try {
    server = await startCodecServer(codecServerOptionsFromEnv());
  } catch (err) {
    // A configuration mistake is the operator's: one line, no stack.
    if (err instanceof CodecServerConfigError || err instanceof PayloadKeyRingError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  process.stdout.write(`CODEC_READY url=${server.url}\n`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
