// Runs before each integration test file. A test process runs many files one after another
// (isolate: false in vitest.config.ts), sharing its modules, so what each file needs of its own
// is set up here, where vitest runs it again for every file.
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { afterAll, afterEach } from 'vitest';
import { stopSpawnedWorkers } from '../support/crash.js';

// The SDK's logs kept to warnings and errors, so the test output stays readable. The Runtime is
// the process's one: it cannot be installed twice.
const installed = Symbol.for('bounded-react-temporal.test.runtime');
const registry = globalThis as { [installed]?: true };
if (!registry[installed]) {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  registry[installed] = true;
}

afterEach(stopSpawnedWorkers);

// The environment as the file found it, put back after its last test: a variable one file set
// (say, a metrics address) would otherwise reach every worker a later file spawns.
const environment = { ...process.env };
afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in environment)) delete process.env[name];
  Object.assign(process.env, environment);
});
