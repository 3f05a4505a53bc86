// The Kubernetes alert demo, run exactly as docs/kubernetes.md prints it, in this checkout: it
// starts a control plane of its own, breaks a Deployment, and Prometheus (scraping the exporter of
// the API's objects) and Alertmanager start the run, which must end resolved after the soak with
// one restart in the API's own history (the demo reads the Deployment's ReplicaSets before it
// stops the control plane, and exits 1 otherwise). Its own Temporal server too, as a reader's.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { blocksOf, commandsOf, repoRoot } from '../readme/blocks.js';

/** The command as the page prints it: the one block that runs the demo. */
function printedDemoCommand(): string {
  const commands = blocksOf('docs/kubernetes.md').flatMap(commandsOf);
  const demo = commands.filter((c) => c.includes('--kubernetes'));
  if (demo.length !== 1) throw new Error(`docs/kubernetes.md prints ${demo.length} demo commands, not one: ${demo.join(' | ')}`);
  return demo[0] as string;
}

function run(command: string): Promise<{ code: number | null; out: string }> {
  const env = { ...process.env };
  delete env.TEMPORAL_ADDRESS; // a reader's shell: the demo provisions its own server
  const child = spawn('sh', ['-c', command], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, out })));
}

describe('npm run demo -- --kubernetes', () => {
  // Two control planes (this one and the suite's) and a Temporal server on a shared host: generous, not a measurement.
  it('lets Prometheus and Alertmanager start the run, which resolves after the soak with one restart in the API', { timeout: 900_000 }, async () => {
    const command = printedDemoCommand();
    expect(command).toBe('npm run demo -- --kubernetes');
    const { code, out } = await run(command);
    expect(out, out).toMatch(/Prometheus: .*ServiceMemoryHigh.* firing for INC-DEMO/);
    expect(out, out).toMatch(/Alertmanager posted group \{"case_id":"INC-DEMO\w+"\}: firing/);
    expect(out, out).toMatch(/run alerts-INC-DEMO\w+-ag[0-9a-f]{12} started/);
    expect(out, out).toMatch(/call restart_service\(\{"service":"cache"\}\)/);
    expect(out, out).toMatch(/run ended resolved \(probe_confirmed\).*soak/);
    // The API's own record, read by the demo before it stopped the control plane.
    expect(out, out).toMatch(/the API's own history of INC-DEMO\w+'s cache \(1 effect\)/);
    expect(out.match(/made by effect restart \(key alerts\/restart_service\/restart:INC-DEMO\w+-ag[0-9a-f]{12}:cache\)/g), out).toHaveLength(1);
    expect(code, out).toBe(0);
  });
});
