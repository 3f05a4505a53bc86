// Where `npm run eval` writes its results. A run is usually someone looking around, so by
// default it goes under the ignored .eval/ folder and leaves the clone clean; only an explicit
// --update-results rewrites the tracked eval/results/latest.json that the READMEs quote.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));

/** The tracked results file, changed only on purpose. */
export const trackedResultsFile = join(projectRoot, 'eval', 'results', 'latest.json');
/** The default: ignored by git (.gitignore lists .eval/). */
export const scratchResultsFile = join(projectRoot, '.eval', 'latest.json');

export function resultsFile(options: { out?: string | undefined; updateResults?: boolean }): string {
  if (options.out !== undefined) return options.out;
  return options.updateResults ? trackedResultsFile : scratchResultsFile;
}
