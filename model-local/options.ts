// The server's settings, from its flags and the MODEL_* environment (flags win), checked once at
// start: a bad value stops the server with the reason, before any model is loaded.
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { MODELS_DIR, variantFromArgs, type Variant } from './fetch-model.js';

export interface ServerOptions {
  variant: Variant;
  modelFile: string;
  modelId: string;
  port: number;
  threads: number;
  contextSize: number;
  maxCalls: number;
  debugPrompt: boolean;
}

export class OptionError extends Error {
  override readonly name = 'OptionError';
}

export function serverOptions(argv: readonly string[], env: NodeJS.ProcessEnv): ServerOptions {
  const { values: args } = parseArgs({
    args: [...argv],
    options: {
      small: { type: 'boolean', default: false },
      port: { type: 'string' },
      threads: { type: 'string' },
      model: { type: 'string' },
      'context-size': { type: 'string' },
    },
    strict: true,
  });
  const variant = variantFromArgs(args.small ? ['--small'] : []);
  const ownFile = join(MODELS_DIR, variant.file);
  const modelFile = args.model ?? (env.MODEL_FILE?.trim() || ownFile);
  return {
    variant,
    modelFile,
    modelId: env.MODEL_ID?.trim() || (modelFile === ownFile ? variant.id : basename(modelFile).replace(/\.gguf$/i, '')),
    port: intOption('port', args.port ?? env.MODEL_PORT, 8088, 0, 65535),
    threads: intOption('threads', args.threads ?? env.MODEL_THREADS, 1, 1, 64),
    contextSize: intOption('context-size', args['context-size'] ?? env.MODEL_CONTEXT, 8192, 512, 131072),
    // Calls per reply. 1 by default: past its first call, a small model tends to be drawn into more
    // (the separator between calls is a newline) and repeats or adds calls it did not mean.
    maxCalls: intOption('max-calls', env.MODEL_MAX_CALLS, 1, 1, 64),
    debugPrompt: env.MODEL_DEBUG_PROMPT === '1',
  };
}

function intOption(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new OptionError(`--${name} must be an integer in [${min}, ${max}], got ${JSON.stringify(raw)}`);
  return n;
}
