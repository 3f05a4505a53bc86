// Each test file runs in its own process; keep the SDK's logs to warnings and errors so the
// test output stays readable.
import { DefaultLogger, Runtime } from '@temporalio/worker';

Runtime.install({ logger: new DefaultLogger('WARN') });
