// Download (if needed) and verify the model only: `npx tsx model-local/verify.ts [--small]`.
// Exits 0 with the verified path on stdout, or non-zero with the reason on stderr.
import { ensureModel, ModelRefused, variantFromArgs } from './fetch-model.js';

const variant = variantFromArgs(process.argv.slice(2));
try {
  const path = await ensureModel(variant, { file: process.env.MODEL_FILE?.trim() || undefined, allowUnverified: process.env.MODEL_UNVERIFIED === '1' });
  process.stdout.write(`${path}\n`);
} catch (err) {
  process.stderr.write(`[model-local] ${err instanceof ModelRefused ? 'REFUSED' : 'FAILED'}: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
