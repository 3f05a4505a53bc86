// `npm run world:seed -- <payment|incident> <id> [flags]`: creates a case in the simulated world
// from the command line, so an operator who ran `npm run dev` can start a run without writing
// JSON by hand. The defaults are the typical cases of seeds.ts (what the demo and the tests use);
// the flags change one field at a time, and the world contract's zod schemas check the result
// before it is sent. Exit codes follow the agent CLI: 2 for a usage error, 1 when the world
// refuses or cannot be reached, and exactly one `error: ...` line on stderr either way.
import { parseArgs } from 'node:util';
import { incidents } from '../incidents/domain.js';
import { majorUnits, payments } from '../payments/domain.js';
import { WorldClient, WorldConnectionError, WorldHttpError, WorldTimeoutError } from './client.js';
import { IncidentSeed, PaymentSeed, PAYMENT_STATUSES, PROCESSOR_ACKS, SERVICE_FAULTS, SERVICES, type Service, type ServiceFault } from './contract.js';
import { seedIncident, seedTransfer } from './seeds.js';

/** Where `npm run dev` runs the world. */
export const DEFAULT_WORLD_URL = 'http://127.0.0.1:4100';

class UsageError extends Error {}

/** Records the seed the typical-case helpers would send, without sending it: their defaults, in one place. */
class SeedCapture extends WorldClient {
  payment: PaymentSeed | undefined;
  incident: IncidentSeed | undefined;
  constructor() {
    super('http://capture.invalid');
  }
  override seedPayment(seed: PaymentSeed) {
    this.payment = seed;
    return Promise.resolve({ ok: true as const, transferId: seed.transferId });
  }
  override seedIncident(seed: IncidentSeed) {
    this.incident = seed;
    return Promise.resolve({ ok: true as const, caseId: seed.caseId });
  }
}

async function defaultPayment(transferId: string): Promise<PaymentSeed> {
  const capture = new SeedCapture();
  await seedTransfer(capture, transferId);
  if (!capture.payment) throw new Error('seeds.ts seedTransfer sent no seed');
  return capture.payment;
}

async function defaultIncident(caseId: string): Promise<IncidentSeed> {
  const capture = new SeedCapture();
  await seedIncident(capture, caseId);
  if (!capture.incident) throw new Error('seeds.ts seedIncident sent no seed');
  return capture.incident;
}

async function usage(): Promise<string> {
  const p = await defaultPayment('PX-1042');
  const i = await defaultIncident('INC-7');
  const flag = (name: string, text: string) => `  ${name.padEnd(46)}${text}`;
  return [
    'usage: npm run world:seed -- <payment|incident> <id> [flags]',
    '',
    'payment <transferId>: a transfer as the ledger, its lagging replica and the processor hold it',
    flag(`--ledger ${PAYMENT_STATUSES.join('|')}`, `the authoritative ledger (default ${p.ledgerStatus})`),
    flag(`--replica ${PAYMENT_STATUSES.join('|')}`, `what the cheap replica says (default ${p.replicaStatus})`),
    flag('--replica-lag-ms N', `how far behind the replica is (default ${p.replicaLagMs})`),
    flag('--replica-note TEXT', 'free text on the replica, shown to the model as untrusted'),
    flag(`--processor ${PROCESSOR_ACKS.join('|')}`, `the processor's acknowledgement (default ${p.processorAck})`),
    flag('--amount-minor N', `amount in minor units (default ${p.amountMinor})`),
    flag('--currency CODE', `(default ${p.currency})`),
    '',
    'incident <caseId>: services api, db and cache, one of them broken',
    flag(`--faulty ${[...SERVICES, 'none'].join('|')}`, `the broken service (default ${i.faulty?.service ?? 'none'})`),
    flag(`--fault ${SERVICE_FAULTS.join('|')}`, `what is wrong with it (default ${i.faulty?.fault ?? 'none'})`),
    flag('--hostile-log-line TEXT', 'a log line that tries to instruct the agent'),
    '',
    `The world is WORLD_URL (default ${DEFAULT_WORLD_URL}, where \`npm run dev\` runs it).`,
    'Seeding an id again replaces that case and forgets the effects made on it.',
    "A value that starts with '-' is written --flag=-value.",
    'Example: npm run world:seed -- payment PX-1042 --ledger FAILED',
  ].join('\n');
}

const paymentFlags = ['ledger', 'replica', 'replica-lag-ms', 'replica-note', 'processor', 'amount-minor', 'currency'] as const;
const incidentFlags = ['faulty', 'fault', 'hostile-log-line'] as const;
const allFlags = [...paymentFlags, ...incidentFlags];

function oneOf<T extends string>(flag: string, raw: string, allowed: readonly T[], normalize: (s: string) => string): T {
  const value = normalize(raw);
  const found = allowed.find((a) => a === value);
  if (found === undefined) throw new UsageError(`--${flag} must be one of ${allowed.join(', ')}, got '${raw}'`);
  return found;
}

function count(flag: string, raw: string): number {
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value)) throw new UsageError(`--${flag} must be a whole number >= 0, got '${raw}'`);
  return value;
}

/** zod's complaint in one line, with the field named as the flag that sets it. */
function issues(error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> }): string {
  const flagOf: Record<string, string> = {
    transferId: '<transferId>',
    caseId: '<caseId>',
    ledgerStatus: '--ledger',
    replicaStatus: '--replica',
    replicaLagMs: '--replica-lag-ms',
    replicaNote: '--replica-note',
    processorAck: '--processor',
    amountMinor: '--amount-minor',
    currency: '--currency',
    faulty: '--faulty/--fault',
    hostileLogLine: '--hostile-log-line',
  };
  return error.issues.map((i) => `${flagOf[String(i.path[0])] ?? i.path.join('.')}: ${i.message}`).join('; ');
}

type Values = Partial<Record<(typeof allFlags)[number], string>> & { help?: boolean };

async function paymentSeed(transferId: string, v: Values): Promise<PaymentSeed> {
  const status = (flag: string, raw: string) => oneOf(flag, raw, PAYMENT_STATUSES, (s) => s.toUpperCase());
  const seed: PaymentSeed = {
    ...(await defaultPayment(transferId)),
    ...(v.ledger !== undefined ? { ledgerStatus: status('ledger', v.ledger) } : {}),
    ...(v.replica !== undefined ? { replicaStatus: status('replica', v.replica) } : {}),
    ...(v['replica-lag-ms'] !== undefined ? { replicaLagMs: count('replica-lag-ms', v['replica-lag-ms']) } : {}),
    ...(v['replica-note'] !== undefined ? { replicaNote: v['replica-note'] } : {}),
    ...(v.processor !== undefined ? { processorAck: oneOf('processor', v.processor, PROCESSOR_ACKS, (s) => s.toUpperCase()) } : {}),
    ...(v['amount-minor'] !== undefined ? { amountMinor: count('amount-minor', v['amount-minor']) } : {}),
    ...(v.currency !== undefined ? { currency: v.currency.toUpperCase() } : {}),
  };
  const parsed = PaymentSeed.safeParse(seed);
  if (!parsed.success) throw new UsageError(`invalid payment: ${issues(parsed.error)}`);
  return parsed.data;
}

async function incidentSeed(caseId: string, v: Values): Promise<IncidentSeed> {
  const base = await defaultIncident(caseId);
  const lower = (s: string) => s.toLowerCase();
  const faultyFlag = v.faulty === undefined ? undefined : oneOf('faulty', v.faulty, [...SERVICES, 'none'] as const, lower);
  const faultFlag = v.fault === undefined ? undefined : oneOf('fault', v.fault, SERVICE_FAULTS, lower);
  let faulty: IncidentSeed['faulty'];
  if (faultyFlag === 'none') {
    if (faultFlag !== undefined) throw new UsageError('--fault needs a faulty service; --faulty none means every service is healthy');
    faulty = null;
  } else if (faultyFlag === undefined && faultFlag === undefined) {
    faulty = base.faulty;
  } else {
    const service: Service | undefined = faultyFlag ?? base.faulty?.service;
    const fault: ServiceFault | undefined = faultFlag ?? base.faulty?.fault;
    if (!service || !fault) throw new UsageError('name both --faulty and --fault');
    faulty = { service, fault };
  }
  const seed: IncidentSeed = {
    ...base,
    faulty,
    ...(v['hostile-log-line'] !== undefined ? { hostileLogLine: v['hostile-log-line'] } : {}),
  };
  const parsed = IncidentSeed.safeParse(seed);
  if (!parsed.success) throw new UsageError(`invalid incident: ${issues(parsed.error)}`);
  return parsed.data;
}

function describePayment(s: PaymentSeed): string {
  const lag = s.replicaLagMs >= 60_000 && s.replicaLagMs % 60_000 === 0 ? `${s.replicaLagMs / 60_000} min` : `${s.replicaLagMs} ms`;
  return `payment ${s.transferId}: ledger ${s.ledgerStatus}, replica ${s.replicaStatus} (${lag} behind${s.replicaNote ? ', with a note' : ''}), processor ${s.processorAck}, ${majorUnits(s.amountMinor, s.currency)} ${s.currency}`;
}

function describeIncident(s: IncidentSeed): string {
  const what = { memory: 'memory exhaustion', bad_deploy: 'a bad deploy' } as const;
  const broken = s.faulty ? `${s.faulty.service} has ${what[s.faulty.fault]}, the others are healthy` : 'every service healthy';
  return `incident ${s.caseId}: ${broken}${s.hostileLogLine ? ', with a hostile log line' : ''}`;
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        help: { type: 'boolean', short: 'h' },
        ...Object.fromEntries(allFlags.map((f) => [f, { type: 'string' as const }])),
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (err) {
    const message = err instanceof Error ? (err.message.split('\n')[0] ?? '').replace(/\. To specify a positional argument.*$/, '') : String(err);
    throw new UsageError(`${message} (try --help)`);
  }
  const values = parsed.values as Values;
  if (values.help) {
    process.stdout.write(`${await usage()}\n`);
    return 0;
  }
  const [kind, id, extra] = parsed.positionals;
  if (kind === undefined) throw new UsageError('missing <payment|incident> (try --help)');
  if (kind !== 'payment' && kind !== 'incident') throw new UsageError(`unknown kind '${kind}': payment or incident (try --help)`);
  if (id === undefined || id === '')
    throw new UsageError(`missing the ${kind === 'payment' ? '<transferId>' : '<caseId>'} (e.g. ${kind === 'payment' ? 'PX-1042' : 'INC-7'})`);
  if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
  const own: readonly string[] = kind === 'payment' ? paymentFlags : incidentFlags;
  const foreign = allFlags.find((f) => values[f] !== undefined && !own.includes(f));
  if (foreign) throw new UsageError(`--${foreign} is not a ${kind} flag (try --help)`);

  // A case the example domain would refuse to start is no use to anyone: say so now.
  const domain = kind === 'payment' ? payments : incidents;
  const caseId = domain.caseId?.safeParse(id);
  if (caseId && !caseId.success) {
    throw new UsageError(`'${id}' is not a ${domain.name} case id: ${caseId.error.issues[0]?.message ?? 'rejected'}`);
  }

  const worldUrl = process.env.WORLD_URL?.trim() || DEFAULT_WORLD_URL;
  if (!URL.canParse(worldUrl)) throw new UsageError(`WORLD_URL must be a URL such as ${DEFAULT_WORLD_URL}, got '${worldUrl}'`);
  const world = new WorldClient(worldUrl, 5_000);
  if (kind === 'payment') {
    const seed = await paymentSeed(id, values);
    await world.seedPayment(seed);
    process.stdout.write(`seeded ${describePayment(seed)} (world ${worldUrl})\n`);
  } else {
    const seed = await incidentSeed(id, values);
    await world.seedIncident(seed);
    process.stdout.write(`seeded ${describeIncident(seed)} (world ${worldUrl})\n`);
  }
  return 0;
}

function describeError(err: unknown): string {
  if (err instanceof WorldHttpError) {
    const body = err.body as { error?: unknown; issues?: unknown } | null;
    return `the world refused the seed (${err.status}${typeof body?.error === 'string' ? ` ${body.error}` : ''}): ${JSON.stringify(err.body)?.slice(0, 300) ?? ''}`;
  }
  if (err instanceof WorldConnectionError || err instanceof WorldTimeoutError) {
    return `cannot reach the world at ${process.env.WORLD_URL?.trim() || DEFAULT_WORLD_URL} (${err.message}); is \`npm run dev\` running, or is WORLD_URL wrong?`;
  }
  return err instanceof Error ? err.message : String(err);
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`error: ${describeError(err).replace(/\s*[\r\n]+\s*/g, ' ')}\n`);
  process.exitCode = err instanceof UsageError ? 2 : 1;
}
