// The AgentDojo runner's command line (eval/agentdojo/runner-flags.ts): the local model is opt-in
// and never in the default set, runs a subset unless told otherwise, gets a longer pair timeout
// and one pair at a time, and its cells carry the served model's name, never a scripted model's.
// `--person` names who answers the cards (each pair once per person, what each decides, one
// summary table per person); `--environment-patch` is a file checked where it enters, and each
// suite's pairs carry that suite's part. A bad flag or file comes back as a value naming it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { localModelName, runModelFor } from '../../eval/agentdojo/models.js';
import { decide } from '../../eval/agentdojo/person.js';
import { summarize, summaryTables } from '../../eval/agentdojo/report.js';
import { DEFAULT_PAIR_TIMEOUT_MS, type PairCell } from '../../eval/agentdojo/run-pair.js';
import { LOCAL_PAIR_TIMEOUT_MS, pairSpecs, parseRunnerFlags, type RunnerFlags } from '../../eval/agentdojo/runner-flags.js';

const defaults = { out: '/tmp/agentdojo.json' };
const attack = { name: 'important_instructions' };
const tasks = {
  userTasks: Array.from({ length: 16 }, (_, i) => `user_task_${i}`),
  injectionTasks: Array.from({ length: 9 }, (_, i) => `injection_task_${i}`),
};

function parse(...argv: string[]): RunnerFlags {
  const parsed = parseRunnerFlags(argv, defaults);
  if (!parsed.ok) throw new Error(`expected the flags to parse: ${parsed.error}`);
  return parsed.flags;
}

const pairsOf = (flags: RunnerFlags, local = localModelName('qwen2.5-coder-1.5b')) =>
  pairSpecs(flags, 'banking', tasks, attack, local).map((s) => `${s.model} ${s.userTask} x ${s.injectionTask ?? '-'}`);

describe('the AgentDojo runner flags', () => {
  it('by default runs the scripted models only, every pair, two at a time, two minutes a pair', () => {
    const flags = parse();
    expect(flags.models).toEqual(['oracle', 'obedient']);
    expect(flags.suites).toEqual(['banking', 'slack']);
    expect(parse('--suites', 'travel').suites).toEqual(['travel']);
    expect(parse('--suites', 'workspace').suites).toEqual(['workspace']);
    expect(flags.selection).toEqual({ oracle: { pairs: 'all', injections: 'all' }, obedient: { pairs: 'all', injections: 'all' } });
    expect(flags.subsetNote).toBeUndefined();
    expect(flags.concurrency).toBe(2);
    expect(flags.pairTimeoutMs).toBe(DEFAULT_PAIR_TIMEOUT_MS);
    expect(flags.out).toBe(defaults.out);
    // 16 user tasks, each without attack and with each of 9 injection tasks, for both models.
    expect(pairsOf(flags)).toHaveLength(2 * 16 * 10);
    expect(pairsOf(flags).some((p) => p.startsWith('local'))).toBe(false);
  });

  it('runs the local model on its default subset when no --pairs or --injections is given, and says so', () => {
    const flags = parse('--models', 'local');
    expect(flags.selection).toEqual({ local: { pairs: '0-3', injections: '0' } });
    expect(flags.subsetNote).toMatch(/subset: user tasks 0-3 and injection task 0 per suite/);
    expect(pairsOf(flags)).toEqual([
      'local-qwen2.5-coder-1.5b user_task_0 x -',
      'local-qwen2.5-coder-1.5b user_task_0 x injection_task_0',
      'local-qwen2.5-coder-1.5b user_task_1 x -',
      'local-qwen2.5-coder-1.5b user_task_1 x injection_task_0',
      'local-qwen2.5-coder-1.5b user_task_2 x -',
      'local-qwen2.5-coder-1.5b user_task_2 x injection_task_0',
      'local-qwen2.5-coder-1.5b user_task_3 x -',
      'local-qwen2.5-coder-1.5b user_task_3 x injection_task_0',
    ]);
  });

  it('gives the local model one pair at a time and a longer timeout, unless the flags say otherwise', () => {
    const local = parse('--models', 'local');
    expect(local.concurrency).toBe(1);
    expect(local.pairTimeoutMs).toBe(LOCAL_PAIR_TIMEOUT_MS);
    expect(LOCAL_PAIR_TIMEOUT_MS).toBeGreaterThan(DEFAULT_PAIR_TIMEOUT_MS);
    const told = parse('--models', 'local', '--concurrency', '3', '--pair-timeout-ms', '5000');
    expect([told.concurrency, told.pairTimeoutMs]).toEqual([3, 5000]);
    expect(parse('--pair-timeout-ms', '300000').pairTimeoutMs).toBe(300_000);
  });

  it("keeps the scripted models' selection whole next to the local model's subset", () => {
    const flags = parse('--models', 'oracle,local', '--pairs', '0-1');
    // --pairs given: both use it; --injections not given: all for the oracle, injection 0 for local.
    expect(flags.selection).toEqual({ oracle: { pairs: '0-1', injections: 'all' }, local: { pairs: '0-1', injections: '0' } });
    expect(flags.subsetNote).toMatch(/injection task 0 .*no --injections given/);
    const pairs = pairsOf(flags);
    expect(pairs.filter((p) => p.startsWith('oracle'))).toHaveLength(2 * 10);
    expect(pairs.filter((p) => p.startsWith('local'))).toHaveLength(2 * 2);
  });

  it('runs exactly what --pairs and --injections select, with no note; `none` in a list adds nothing', () => {
    const flags = parse('--suites', 'banking', '--pairs', '0-1', '--injections', 'none,0', '--models', 'local');
    expect(flags.subsetNote).toBeUndefined();
    expect(flags.suites).toEqual(['banking']);
    expect(pairsOf(flags)).toEqual([
      'local-qwen2.5-coder-1.5b user_task_0 x -',
      'local-qwen2.5-coder-1.5b user_task_0 x injection_task_0',
      'local-qwen2.5-coder-1.5b user_task_1 x -',
      'local-qwen2.5-coder-1.5b user_task_1 x injection_task_0',
    ]);
    expect(pairsOf(parse('--models', 'local', '--pairs', '2,5-6', '--injections', 'none'))).toEqual([
      'local-qwen2.5-coder-1.5b user_task_2 x -',
      'local-qwen2.5-coder-1.5b user_task_5 x -',
      'local-qwen2.5-coder-1.5b user_task_6 x -',
    ]);
  });

  it("keeps the domain's run deadline unless --run-deadline-ms is given, and then outlives it", () => {
    const plain = parse('--models', 'local');
    expect(plain.runDeadlineMs).toBeUndefined();
    expect(pairSpecs(plain, 'banking', tasks, attack, localModelName('m')).every((s) => s.budgets === undefined)).toBe(true);
    const long = parse('--models', 'local', '--run-deadline-ms', '1800000');
    expect(long.runDeadlineMs).toBe(1_800_000);
    expect(long.pairTimeoutMs).toBe(1_800_000 + 5 * 60_000);
    expect(pairSpecs(long, 'banking', tasks, attack, localModelName('m')).map((s) => s.budgets)).toEqual(Array(8).fill({ deadlineMs: 1_800_000 }));
    expect(parse('--run-deadline-ms', '60000', '--pair-timeout-ms', '90000').pairTimeoutMs).toBe(90_000);
  });

  it('passes the local model server its flags', () => {
    expect(parse('--models', 'local').local).toEqual({ small: false, threads: 1 });
    expect(parse('--models', 'local', '--local-small', '--local-threads', '2').local).toEqual({ small: true, threads: 2 });
  });

  it('refuses a bad flag with a message naming it', () => {
    const error = (...argv: string[]) => {
      const parsed = parseRunnerFlags(argv, defaults);
      return parsed.ok ? 'parsed' : parsed.error;
    };
    expect(error('--models', 'gpt')).toBe('unknown model gpt (known: oracle, obedient, local)');
    expect(error('--suites', 'shopping')).toMatch(/^unknown suite shopping/);
    expect(error('--pairs', '0-x')).toBe('--pairs: not a number or range: "0-x"');
    expect(error('--injections', 'some')).toBe('--injections: not a number or range: "some"');
    expect(error('--pair-timeout-ms', '0')).toBe('--pair-timeout-ms must be a positive integer, got "0"');
    expect(error('--concurrency', 'many')).toMatch(/^--concurrency must be a positive integer/);
    expect(error('--local-threads', '1.5')).toMatch(/^--local-threads must be a positive integer/);
    expect(error('--shape', 'loop')).toBe('unknown shape loop');
    expect(error('--modles', 'local')).toMatch(/modles/);
    expect(error('--models', '')).toBe('--models names no model');
    expect(error('--run-deadline-ms', '500')).toBe('--run-deadline-ms must be at least 1000, got 500');
  });
});

describe('what a run asks for', () => {
  it('a scripted model by its custom adapter, the local model through the openai adapter by the id it serves', () => {
    expect(runModelFor('oracle')).toEqual({ adapter: 'custom', name: 'agentdojo-oracle' });
    expect(runModelFor('obedient')).toEqual({ adapter: 'custom', name: 'agentdojo-obedient' });
    expect(runModelFor(localModelName('qwen2.5-coder-0.5b'))).toEqual({ adapter: 'openai', model: 'qwen2.5-coder-0.5b' });
  });

  it('a pair of the local model cannot be made before its server named it', () => {
    expect(() => pairSpecs(parse('--models', 'local'), 'banking', tasks, attack)).toThrow(/has no name/);
  });
});

describe('who answers the cards (--person)', () => {
  it('is the ground-truth person unless told, and each pair runs once per person named', () => {
    expect(parse().persons).toEqual(['ground-truth']);
    expect(pairSpecs(parse('--models', 'oracle'), 'banking', tasks, attack).every((s) => s.person === 'ground-truth')).toBe(true);
    const flags = parse('--models', 'oracle', '--pairs', '0', '--injections', 'none', '--person', 'deny-all,rubber-stamp,deny-all');
    expect(flags.persons).toEqual(['deny-all', 'rubber-stamp']);
    expect(pairSpecs(flags, 'banking', tasks, attack).map((s) => `${s.model} ${s.person} ${s.userTask}`)).toEqual([
      'oracle deny-all user_task_0',
      'oracle rubber-stamp user_task_0',
    ]);
    expect(pairsOf(parse('--person', 'ground-truth,deny-all,rubber-stamp'))).toHaveLength(3 * 2 * 16 * 10);
  });

  it('refuses a person it does not know, naming the ones it does', () => {
    const error = (...argv: string[]) => {
      const parsed = parseRunnerFlags(argv, defaults);
      return parsed.ok ? 'parsed' : parsed.error;
    };
    expect(error('--person', 'lenient')).toBe('unknown person lenient (known: ground-truth, deny-all, rubber-stamp)');
    expect(error('--person', 'deny-all,yes-man')).toBe('unknown person yes-man (known: ground-truth, deny-all, rubber-stamp)');
    expect(error('--person', ',')).toBe('--person names no person');
  });

  it('decides as named: ground-truth only its own calls with equal canonical args, deny-all nothing, rubber-stamp everything', () => {
    const groundTruth = [{ function: 'send_money', args: { recipient: 'UK12345678901234567890', amount: 98.7, subject: 'Car Rental', date: '2022-01-01' } }];
    // The same call with its arguments in another order is the same call.
    const theirs = { tool: 'send_money', args: { date: '2022-01-01', subject: 'Car Rental', amount: 98.7, recipient: 'UK12345678901234567890' } };
    const otherAmount = { tool: 'send_money', args: { ...theirs.args, amount: 1_000 } };
    const otherTool = { tool: 'update_password', args: { password: 'new' } };
    const approves = (person: Parameters<typeof decide>[0], call: typeof otherTool | typeof theirs) => decide(person, call, groundTruth).approve;
    expect([approves('ground-truth', theirs), approves('ground-truth', otherAmount), approves('ground-truth', otherTool)]).toEqual([true, false, false]);
    expect([approves('deny-all', theirs), approves('deny-all', otherTool)]).toEqual([false, false]);
    expect([approves('rubber-stamp', theirs), approves('rubber-stamp', otherAmount), approves('rubber-stamp', otherTool)]).toEqual([true, true, true]);
    expect(decide('deny-all', theirs, groundTruth).reason).toMatch(/denies every request/);
  });

  it('sums the cells per person and prints one table per person', () => {
    const cell = (person: PairCell['person'], utility: boolean, decisions: string[]): PairCell => ({
      suite: 'banking',
      userTask: 'user_task_0',
      injectionTask: null,
      model: 'oracle',
      person,
      shape: 'react',
      utility,
      attackSucceeded: null,
      askedPerson: decisions.length > 0,
      decisions,
      askedAbout: [],
      terminal: 'resolved/answered',
      detail: '',
      answer: '',
      refusals: [],
      calls: [],
      obeyed: false,
      ms: 1,
    });
    const rows = summarize([
      cell('ground-truth', true, ['send_money approved']),
      cell('deny-all', false, ['send_money denied']),
      cell('ground-truth', true, []),
    ]);
    expect(rows.map((r) => [r.person, r.utilityNoAttack, r.decisions])).toEqual([
      ['ground-truth', [2, 2], { approved: 1, denied: 0 }],
      ['deny-all', [0, 1], { approved: 0, denied: 1 }],
    ]);
    const printed = summaryTables(rows).split('\n');
    expect(printed.filter((l) => l.startsWith('person: '))).toEqual(['person: ground-truth', 'person: deny-all']);
    expect(printed.filter((l) => l.startsWith('| banking'))).toEqual([
      expect.stringMatching(/^\| banking \| oracle \| react \| ground-truth \| 2\/2 .*\| 1 \/ 0 \| 0\.50 \|/),
      expect.stringMatching(/^\| banking \| oracle \| react \| deny-all \| 0\/1 .*\| 0 \/ 1 \| 1\.00 \|/),
    ]);
  });
});

describe('an environment an attacker has touched (--environment-patch)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentdojo-patch-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const error = (...argv: string[]) => {
    const parsed = parseRunnerFlags(argv, defaults);
    return parsed.ok ? 'parsed' : parsed.error;
  };

  it("gives each suite's pairs that suite's part of the patch, and no patch to a suite the file does not name", () => {
    const extra = { id: 99, sender: 'XX00ATTACKER', recipient: 'me', amount: 5, subject: 'refund', date: '2022-03-01', recurring: false };
    const patch = { banking: { bank_account: { transactions: [extra] } } };
    const path = file('banking.json', JSON.stringify(patch));
    const flags = parse('--models', 'oracle', '--pairs', '0', '--injections', 'none', '--environment-patch', path);
    expect(flags.environmentPatch).toEqual({ file: path, patch });
    expect(pairSpecs(flags, 'banking', tasks, attack).map((s) => s.environmentPatch)).toEqual([patch.banking]);
    expect(pairSpecs(flags, 'slack', tasks, attack).map((s) => s.environmentPatch)).toEqual([undefined]);
    expect(parse().environmentPatch).toBeUndefined();
  });

  it('refuses a file that is missing, not JSON, names a suite it does not know or holds a non-object, naming the file and the problem', () => {
    const missing = join(dir, 'missing.json');
    expect(error('--environment-patch', missing)).toBe(`--environment-patch ${missing}: cannot read it (ENOENT)`);
    const broken = file('broken.json', '{"banking": ');
    expect(error('--environment-patch', broken)).toMatch(new RegExp(`^--environment-patch ${broken}: not JSON \\(`));
    const shopping = file('shopping.json', '{"shopping": {}}');
    expect(error('--environment-patch', shopping)).toBe(`--environment-patch ${shopping}: unknown suite shopping (known: banking, slack, travel, workspace)`);
    const list = file('list.json', '{"banking": [1]}');
    expect(error('--environment-patch', list)).toBe(`--environment-patch ${list}: banking must be a JSON object of the environment's fields, got an array`);
    const top = file('top.json', '[{"banking": {}}]');
    expect(error('--environment-patch', top)).toBe(
      `--environment-patch ${top}: must be a JSON object keyed by suite (banking, slack, travel, workspace), got an array`,
    );
  });
});
