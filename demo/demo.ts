// `npm run demo`: provisions a Temporal dev server (or uses TEMPORAL_ADDRESS, or the dev server
// `npm run dev` already runs on .temporal/dev.sqlite), starts the simulated systems of record
// and a worker, runs every scenario with the `rules` model (two use a scripted one to show the
// guards), prints each run and the Web UI URL (`--alerts`: the alert loop, demo/alerts-demo.ts;
// `--kubernetes`: the same loop on a real Kubernetes control plane).
// Any failure is one line, never a stack. Each
// scenario says what should happen before its run's lines and marks whether it did, so an
// escalation a scenario is there to show (a conflict, a loop) does not read as a failure.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { WorldClient } from '../domains/world/client.js';
import { freePort, isPortFree } from '../temporal-dev/ports.js';
import { stderrLog } from '../temporal-dev/log.js';
import { devDatabaseFile, projectRoot } from '../temporal-dev/paths.js';
import { startLocalStack } from './local-stack.js';
import { renderRun } from './render.js';
import { runScenario, type DemoKeys, type ScenarioOutcome } from './run-scenario.js';
import { endedAsExpected, expectedEnd, type Scenario } from './scenarios.js';
import { directoryEntry, generateKey } from '../client/sign.js';
import { scenarios } from './scenarios.js';

const out = (line: string) => process.stdout.write(`${line}\n`);
/** The first line of what went wrong: what a person reads instead of a stack. */
const oneLine = (err: unknown): string => ((err instanceof Error ? err.message : String(err)).split('\n').find((l) => l.trim()) ?? 'unknown error').trim();
const fail = (err: unknown): never => {
  process.stderr.write(`demo: ${oneLine(err)}\n`);
  process.exit(1);
};
process.on('unhandledRejection', fail);

let values: { json: boolean; 'keep-server': boolean; only?: string | undefined; alerts: boolean; kubernetes: boolean };
try {
  ({ values } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      'keep-server': { type: 'boolean', default: false },
      only: { type: 'string' },
      alerts: { type: 'boolean', default: false },
      kubernetes: { type: 'boolean', default: false },
    },
    strict: true,
  }));
} catch (err) {
  process.stderr.write(`demo: ${oneLine(err)}\n`);
  process.exit(2);
}
Runtime.install({ logger: new DefaultLogger('WARN') });
// `--alerts`: the alert loop instead of the scenarios (demo/alerts-demo.ts); `--kubernetes`: the
// same loop on a real control plane (built once into .temporal/kubernetes/, many minutes).
if (values.alerts || values.kubernetes) {
  const { runAlertsDemo } = await import('./alerts-demo.js');
  process.exit(await runAlertsDemo(out, values.kubernetes ? 'kubernetes' : 'world').catch(fail));
}

const chosen = scenarios.filter((s) => !values.only || s.name === values.only);
if (chosen.length === 0) fail(new Error(`no scenario named ${values.only} (scenarios: ${scenarios.map((s) => s.name).join(', ')})`));
const preferred = async (port: number) => ((await isPortFree(port)) ? port : freePort());
// The approver's key is made fresh for this demo; the worker trusts its public key only.
const keys: DemoKeys = { 'alice@ops': generateKey('alice@ops') };
const approvers = { approvers: Object.values(keys).map((k) => directoryEntry(k, ['payments-approver'])) };
const stack = await startLocalStack({
  server: { port: await preferred(7233), uiPort: await preferred(8233), dbFile: devDatabaseFile, log: stderrLog },
  worldDb: join(projectRoot, '.world', 'demo.db'),
  blobDir: join(projectRoot, '.world', 'blobs'),
  taskQueue: 'agent-demo',
  approvers,
}).catch(fail);
const { target, world, client, worker, taskQueue } = stack;

let failures = 0;
const stamp = Date.now().toString(36);
/** What a scenario should do, before anything of its run is printed. */
const expectationLine = (s: Scenario) => `  expected: ${expectedEnd(s)}${s.expectation ? ` · ${s.expectation}` : ''}`;
if (!values.json) {
  out(`Running ${chosen.length} scenario${chosen.length === 1 ? '' : 's'} at once; each says what should happen, then how its run went:`);
  for (const s of chosen) out(`  ${`${s.domain}/${s.name}`.padEnd(34)} expected: ${expectedEnd(s)}`);
}
type Attempt = ScenarioOutcome | { scenario: Scenario; error: string };
await worker
  .runUntil(async () => {
    const attempts: Attempt[] = await Promise.all(
      chosen.map((s) =>
        runScenario(client, new WorldClient(world.url), taskQueue, s, stamp, keys).catch((err: unknown): Attempt => ({ scenario: s, error: oneLine(err) })),
      ),
    );
    for (const o of attempts) {
      if ('error' in o) {
        failures++;
        if (values.json) out(JSON.stringify({ scenario: `${o.scenario.domain}/${o.scenario.name}`, error: o.error }));
        else {
          out('');
          out(`${o.scenario.domain}/${o.scenario.name}: ${o.scenario.story}`);
          out(expectationLine(o.scenario));
          out(`  ✗ NOT AS EXPECTED: the scenario failed to run: ${o.error}`);
        }
        continue;
      }
      const t = o.result.terminal;
      const asExpected = endedAsExpected(o.scenario, t);
      if (!asExpected) failures++;
      if (values.json) {
        out(
          JSON.stringify({
            run: o.workflowId,
            scenario: `${o.scenario.domain}/${o.scenario.name}`,
            terminal: t.class,
            reason: t.reason,
            detail: t.detail,
            turns: o.result.turns,
            effects: o.result.effects.length,
            expected: expectedEnd(o.scenario),
            asExpected,
          }),
        );
        continue;
      }
      out('');
      out(`${o.scenario.domain}/${o.scenario.name}: ${o.scenario.story}`);
      out(expectationLine(o.scenario));
      out(`  run ${o.workflowId}  model=${o.scenario.model(o.view.state.caseId).adapter}`);
      for (const line of renderRun(o.view.state, o.view.headline)) out(line);
      out(
        asExpected
          ? `  ✓ as expected: ended ${t.class} (${t.reason})`
          : `  ✗ NOT AS EXPECTED: ended ${t.class} (${t.reason}), expected ${expectedEnd(o.scenario)}`,
      );
    }
  })
  .catch(fail);

if (!values.json) {
  out('');
  out(`${chosen.length - failures}/${chosen.length} scenarios ended as expected.`);
  const later = target.startedHere && !values['keep-server'] ? ' (run `npm run dev:server` to browse these runs again; state is in .temporal/dev.sqlite)' : '';
  if (target.uiUrl) out(`Web UI: ${target.uiUrl}/namespaces/${target.namespace}/workflows${later}`);
}
await stack.close({ keepServer: values['keep-server'] }).catch(fail);
if (values['keep-server'] && target.startedHere) {
  stderrLog('server kept running; Ctrl-C stops it');
  process.on('SIGINT', () => void target.stop().then(() => process.exit(failures ? 1 : 0)));
} else {
  process.exit(failures ? 1 : 0);
}
