// alerts: the alert receiver as a process of its own. Alertmanager's webhook posts here; each alert
// group starts one run (client/alerts/receiver.ts). The mapping from an alert group to a domain
// and a case is the team's: a module whose `mapAlertGroup` export is an AlertMapping. The secret
// comes from the environment (AGENT_ALERTS_TOKEN or AGENT_ALERTS_BASIC), never from a flag.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { receiverAuthFromEnv } from '../alerts/auth.js';
import { createAlertReceiver, type AlertMapping } from '../alerts/receiver.js';
import { z } from 'zod';
import { AlertRule, prometheusRuleFile } from '../alerts/rules.js';
import { UsageError } from '../usage.js';
import type { CommandRun } from './types.js';

export const alerts: CommandRun = async (ctx, _args, flags) => {
  const auth = receiverAuthFromEnv(ctx.env);
  if (typeof auth === 'string') throw new UsageError(auth);
  const mappingFile = flags.str('mapping');
  if (!mappingFile) throw new UsageError('alerts: --mapping FILE is required (a module exporting mapAlertGroup)');
  const map = await loadMapping(mappingFile);
  const port = flags.int('port', 0, 65_535) ?? 9095;
  const host = flags.str('host') ?? '127.0.0.1';

  const agent = await ctx.agent();
  const receiver = createAlertReceiver({ agent, auth, map, log: (line) => ctx.err(`alerts: ${line}`) });
  const { url } = await receiver.listen(port, host);
  ctx.out(
    ctx.json ? JSON.stringify({ listening: url, taskQueue: agent.taskQueue }) : `alert receiver listening on ${url} (runs on task queue ${agent.taskQueue})`,
  );

  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  await receiver.close();
  return 0;
};

/** The rule file for a team's AlertRule[] (its module's `alertRules` export), checked before it is written. */
export const alertRules: CommandRun = async (ctx, _args, flags) => {
  const file = flags.str('rules');
  if (!file) throw new UsageError('alert-rules: --rules FILE is required (a module exporting alertRules)');
  const parsed = RuleList.safeParse((await loadModule(file, '--rules')).alertRules);
  if (!parsed.success)
    throw new UsageError(
      `alert-rules: ${file}'s alertRules is not a list of rules: ${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? ''}`,
    );
  const text = `${JSON.stringify(prometheusRuleFile(parsed.data, flags.str('group') ?? undefined), null, 2)}\n`;
  const out = flags.str('out');
  if (out === undefined) ctx.out(text.trimEnd());
  else {
    writeFileSync(out, text);
    ctx.out(ctx.json ? JSON.stringify({ written: out, rules: parsed.data.length }) : `wrote ${parsed.data.length} rule(s) to ${out}`);
  }
  return 0;
};

const RuleList = z.array(AlertRule).min(1);

async function loadMapping(file: string): Promise<AlertMapping> {
  const module = await loadModule(file, '--mapping');
  const map = module.mapAlertGroup;
  if (typeof map !== 'function') throw new UsageError(`alerts: ${file} has no mapAlertGroup function export`);
  return map as AlertMapping;
}

/**
 * A team's module, JavaScript or TypeScript. TypeScript is loaded with tsx from the team's own
 * project (where the file is), else from this package's: Node 20 cannot strip types itself.
 */
export async function loadModule(file: string, flag: string): Promise<Record<string, unknown>> {
  const path = isAbsolute(file) ? file : resolve(process.cwd(), file);
  const url = pathToFileURL(path).href;
  try {
    if (!/\.[mc]?ts$/.test(path) || typeScriptLoaded()) return (await import(url)) as Record<string, unknown>;
    const tsx = await tsxFor(path);
    if (!tsx) throw new UsageError(`alerts: ${flag} ${file} is TypeScript: install tsx in your project (npm install --save-dev tsx), or give the compiled .js`);
    return (await tsx.tsImport(url, import.meta.url)) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`alerts: cannot load ${flag} ${file}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  }
}

/** This process already loads TypeScript (started under tsx): a plain import takes a .ts file. */
function typeScriptLoaded(): boolean {
  return /\.ts$/.test(fileURLToPath(import.meta.url));
}

type TsxApi = { tsImport(specifier: string, parent: string): Promise<unknown> };

async function tsxFor(path: string): Promise<TsxApi | undefined> {
  for (const from of [path, fileURLToPath(import.meta.url)]) {
    let manifest: string;
    try {
      manifest = createRequire(from).resolve('tsx/package.json');
    } catch {
      continue; // not installed there: try the next place
    }
    // Its ESM build, as its exports name it (its CommonJS one registers hooks a module cannot take).
    const exported = (JSON.parse(readFileSync(manifest, 'utf8')) as { exports?: Record<string, { import?: { default?: string } }> }).exports;
    const entry = exported?.['./esm/api']?.import?.default;
    if (entry) return (await import(pathToFileURL(join(dirname(manifest), entry)).href)) as TsxApi;
  }
  return undefined;
}
