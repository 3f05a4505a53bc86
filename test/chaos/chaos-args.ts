// The chaos run's command-line options, shared by `npm run chaos` and `npm run test:cluster`:
// parsed, checked (a bad value exits 2 with one line naming the flag) and returned as numbers.
import { parseArgs } from 'node:util';

export interface ChaosNumbers {
  workers: number;
  runs: number;
  kills: number;
  seed: number;
  timeoutS: number;
}

/** The options of `program` (named in its error lines), with `timeoutS` as the default time limit. */
export function chaosArgs(program: string, timeoutS: number): ChaosNumbers {
  const { values } = parseArgs({
    options: {
      workers: { type: 'string', default: '3' },
      runs: { type: 'string', default: '32' },
      kills: { type: 'string', default: '10' },
      seed: { type: 'string', default: String(Date.now() % 100_000) },
      'timeout-s': { type: 'string', default: String(timeoutS) },
    },
    strict: true,
  });
  const numbers: ChaosNumbers = {
    workers: Number(values.workers),
    runs: Number(values.runs),
    kills: Number(values.kills),
    seed: Number(values.seed),
    timeoutS: Number(values['timeout-s']),
  };
  for (const [name, n] of Object.entries(numbers)) {
    if (!Number.isInteger(n) || n < 0 || (name === 'workers' && n < 1)) {
      process.stderr.write(`${program}: --${name === 'timeoutS' ? 'timeout-s' : name} must be a whole number${name === 'workers' ? ' of at least 1' : ''}\n`);
      process.exit(2);
    }
  }
  return numbers;
}
