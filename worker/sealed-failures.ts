// Where the failure converter that seals failure messages lives (worker/failure-converter.cjs,
// which says what it seals), and the one rule for when it is used: wherever payload codecs are,
// since a codec that seals payloads is there to keep a run's data off the server, and an error
// message is often that data (a provider's reply, a system of record's refusal). A team's own
// failure converter is kept.
import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';

/** The path Temporal's SDK loads the converter from: next to this file, in the sources and in the built package. */
export const SEALED_FAILURES_PATH = fileURLToPath(new URL('./failure-converter.cjs', import.meta.url));

/** `converter` with failure messages moved into a payload when it has codecs and no failure converter of its own. */
export function withSealedFailures(converter: DataConverter): DataConverter {
  if (!converter.payloadCodecs?.length || converter.failureConverterPath) return converter;
  return { ...converter, failureConverterPath: SEALED_FAILURES_PATH };
}
