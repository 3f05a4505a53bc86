// The package's public surface is a deliberate list: the entries of package.json "exports",
// read by the TypeScript compiler (test/package/public-surface.ts), must be what docs/api.md's
// table of public names says, each with TSDoc, each entry with a module TSDoc and an example,
// the main names with an example of their own, and none of the names that were made internal
// (CLI plumbing in the client entry, the workflow's internal state and messages, test
// workflows) may come back unnoticed.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { namesTable, publicSurface, writtenTable, type PublicEntry } from './public-surface.js';

/** The names a newcomer starts from: each shows how it is used. */
const WITH_EXAMPLE: Record<string, string[]> = {
  'bounded-react-temporal/workflow': ['defineDomain', 'defineTool', 'agentWorkflowFor'],
  'bounded-react-temporal/worker': ['createAgentWorker', 'agentPlugin', 'implement'],
  'bounded-react-temporal/client': ['AgentClient'],
  'bounded-react-temporal/cli': [],
};

/** Internal since the surface was curated (issue 22): importable inside the repository by path, not from the package. */
const INTERNAL = [
  'RunState',
  'stateQuery',
  'approveUpdate',
  'denyUpdate',
  'addNoteUpdate',
  'cancelSignal',
  'pingWorkflow',
  'signStatement',
  'startRun',
  'checkRunInput',
  'WatchCursor',
  'waitUntil',
  'createActivities',
  'bundleWorkflows',
  'connectConfig',
];

/** About 25 names an entry; a list that grows past this needs a decision, not an accident. */
const MAX_NAMES = 40;

describe('the public surface', { timeout: 180_000 }, () => {
  let surface: PublicEntry[] = [];
  const byEntry = (entry: string) => surface.find((e) => e.entry === entry);

  it('is the five entries of package.json, read from their source files', () => {
    surface = publicSurface();
    expect(surface.map((e) => e.entry)).toEqual([
      'bounded-react-temporal/workflow',
      'bounded-react-temporal/worker',
      'bounded-react-temporal/client',
      'bounded-react-temporal/cli',
      'bounded-react-temporal/alerts',
    ]);
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      exports: Record<string, { types: string; default: string }>;
    };
    for (const [key, target] of Object.entries(pkg.exports)) if (key !== './package.json') expect(target.types).toBe(target.default.replace(/\.js$/, '.d.ts'));
  });

  it('is the table of public names in docs/api.md (regenerate it with `npx tsx test/package/public-surface.ts --write`)', () => {
    expect(writtenTable(), 'docs/api.md has no public-names table between its markers').toBeDefined();
    expect(writtenTable()).toBe(namesTable(surface));
  });

  it('documents every entry (module TSDoc with an example) and every name (TSDoc; the main names with an example)', () => {
    for (const e of surface) {
      expect(e.moduleDoc, `${e.source} has no module TSDoc (/** ... @module */)`).not.toBe('');
      expect(e.moduleDoc, `${e.entry}'s module TSDoc has no @example`).toMatch(/@example/);
      expect(
        e.names.filter((n) => n.doc === '').map((n) => n.name),
        `${e.entry}: names without TSDoc`,
      ).toEqual([]);
      const examples = WITH_EXAMPLE[e.entry] ?? [];
      expect(
        examples.filter((name) => !e.names.find((n) => n.name === name)?.tags.includes('example')),
        `${e.entry}: main names without @example`,
      ).toEqual([]);
    }
  });

  it('stays small, and keeps internal what was made internal', () => {
    // Error classes do not count: every one a team can meet is exported (test/unit/error-family.test.ts).
    const counted = (e: PublicEntry) => e.names.filter((n) => !(n.value && /Error$/.test(n.name))).length;
    for (const e of surface) expect(counted(e), `${e.entry} exports ${counted(e)} names besides its errors`).toBeLessThanOrEqual(MAX_NAMES);
    const everywhere = surface.flatMap((e) => e.names.map((n) => n.name));
    expect(INTERNAL.filter((name) => everywhere.includes(name))).toEqual([]);
    // The CLI is its own entry: the client entry is for programs.
    expect(byEntry('bounded-react-temporal/client')?.names.map((n) => n.name)).not.toContain('runCli');
    expect(byEntry('bounded-react-temporal/cli')?.names.map((n) => n.name)).toEqual(['CliConfig', 'CliError', 'CliIO', 'cliMain', 'runCli', 'UsageError']);
    // Clients read RunView, never the controller's state.
    expect(byEntry('bounded-react-temporal/client')?.names.find((n) => n.name === 'RunView')?.value).toBe(true);
  });
});
