#!/usr/bin/env node
// Download (if needed) and verify the model only: `node model-local/verify.mjs [--small]`.
// Exits 0 with the verified path on stdout, or non-zero with the reason on stderr.
import { ensureModel, ModelRefused, variantFromArgs } from './fetch-model.mjs';

const variant = variantFromArgs(process.argv.slice(2));
try {
  const path = await ensureModel(variant, { file: process.env.MODEL_FILE?.trim() || undefined, allowUnverified: process.env.MODEL_UNVERIFIED === '1' });
  process.stdout.write(`${path}\n`);
} catch (err) {
  process.stderr.write(`[model-local] ${err instanceof ModelRefused ? 'REFUSED' : 'FAILED'}: ${err.message}\n`);
  process.exit(1);
}
