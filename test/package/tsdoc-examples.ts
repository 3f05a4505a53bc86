// Every TSDoc `@example` in the engine's sources, typechecked against the engine as it is: an
// example a team copies must compile, and one that drifted from the API (a renamed option, a
// removed field, a changed return type) fails the typecheck tier here, not in their editor.
//
// Each example becomes a module of its own beside the starter's domain (examples/starter/), so
// `./domain.js` is the starter's `orders` domain; the package's entries resolve to these sources.
// What an example leaves to its surroundings is supplied: names the entries export and the
// starter's tools and domain are imported when it uses them, and anything still unknown (a
// placeholder such as `yourOptions`, `book`, `OrderBook`) is declared `any`. Every other error
// fails the check, with the file and line of the example.
//
// Run by `npm run typecheck` (the typecheck tier): `npx tsx test/package/tsdoc-examples.ts`.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SCANNED = ['workflows', 'worker', 'client', 'activities'];
const ENTRIES: Record<string, string> = {
  'bounded-react-temporal/workflow': 'workflows/public.ts',
  'bounded-react-temporal/worker': 'worker/public.ts',
  'bounded-react-temporal/client': 'client/public.ts',
  'bounded-react-temporal/alerts': 'client/alerts/public.ts',
  'bounded-react-temporal/cli': 'client/cli-public.ts',
};
/** What the examples' surroundings hold besides the entries: the starter's domain and Temporal's classes. */
const SURROUNDINGS: Record<string, string> = {
  orders: './domain.js',
  readOrder: './domain.js',
  cancelOrder: './domain.js',
  Worker: '@temporalio/worker',
  Client: '@temporalio/client',
  fileURLToPath: 'node:url',
};

interface Example {
  /** Where the example starts: `worker/plugin.ts:215`. */
  at: string;
  code: string;
}

/** The `@example` blocks of one file's TSDoc, fences and comment stars taken off. */
export function examplesIn(file: string, text: string): Example[] {
  const out: Example[] = [];
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (!/^\s*\*\s*@example\s*$/.test(line)) return;
    const body: string[] = [];
    for (let i = index + 1; i < lines.length; i++) {
      const raw = lines[i] as string;
      if (/^\s*\*\//.test(raw) || /^\s*\*\s*@\w+/.test(raw)) break;
      body.push(raw.replace(/^\s*\* ?/, ''));
    }
    // Up to the end of the fenced block, when the example is fenced; prose after it is not code.
    const fenced = body.findIndex((l) => l.startsWith('```'));
    const code =
      fenced < 0
        ? body
        : body.slice(
            fenced + 1,
            body.findIndex((l, i) => i > fenced && l.startsWith('```')),
          );
    out.push({ at: `${file}:${index + 1}`, code: code.join('\n') });
  });
  return out;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The value and type names each entry exports, from the compiler's own reading of it. */
function entryExports(program: ts.Program): Map<string, string> {
  const checker = program.getTypeChecker();
  const names = new Map<string, string>();
  for (const [specifier, path] of Object.entries(ENTRIES)) {
    const source = program.getSourceFile(join(ROOT, path));
    const symbol = source && checker.getSymbolAtLocation(source);
    for (const exported of symbol ? checker.getExportsOfModule(symbol) : []) if (!names.has(exported.name)) names.set(exported.name, specifier);
  }
  return names;
}

/** The example as a module: its own code, after imports of what it uses from its surroundings and declarations of what is left. */
function moduleOf(example: Example, exported: Map<string, string>, unknown: ReadonlySet<string>): string {
  const own = new Set(
    [...example.code.matchAll(/\b(?:import\s*(?:type\s*)?\{([^}]*)\}|(?:const|let|function|class|type|interface)\s+(\w+))/g)].flatMap((m) =>
      m[1]
        ? m[1].split(',').map(
            (n) =>
              n
                .trim()
                .replace(/^type\s+/, '')
                .split(/\s+as\s+/)
                .at(-1) ?? '',
          )
        : [m[2] ?? ''],
    ),
  );
  const used = new Set(example.code.match(/\b[A-Za-z_$][\w$]*\b/g) ?? []);
  const bySource = new Map<string, string[]>();
  for (const name of used) {
    if (own.has(name) || unknown.has(name)) continue;
    const from = SURROUNDINGS[name] ?? exported.get(name);
    if (from) bySource.set(from, [...(bySource.get(from) ?? []), name]);
  }
  const imports = [...bySource].map(([from, names]) => `import { ${names.join(', ')} } from '${from}';`);
  const declared = [...unknown].map((name) => `declare const ${name}: any; type ${name} = any;`);
  return [...imports, ...declared, 'export {};', example.code].join('\n');
}

const examples = SCANNED.flatMap(sourceFiles).flatMap((file) => examplesIn(file, readFileSync(join(ROOT, file), 'utf8')));
const pathOf = (i: number) => join(ROOT, 'examples', 'starter', `__tsdoc_example_${i}.ts`);
const parsed = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
if (!parsed) throw new Error('tsconfig.json could not be read');
const options: ts.CompilerOptions = {
  ...parsed.options,
  noEmit: true,
  noUnusedLocals: false,
  paths: Object.fromEntries(Object.entries(ENTRIES).map(([specifier, path]) => [specifier, [join(ROOT, path)]])),
};

/** One program over every example; unknown names found in a pass are declared in the next. */
function compile(modules: string[]): ts.Program {
  const host = ts.createCompilerHost(options);
  const virtual = new Map(modules.map((text, i) => [pathOf(i), text]));
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, ...rest) => {
    const text = virtual.get(file);
    return text !== undefined ? ts.createSourceFile(file, text, language) : getSourceFile(file, language, ...rest);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (file) => virtual.has(file) || fileExists(file);
  const readFile = host.readFile.bind(host);
  host.readFile = (file) => virtual.get(file) ?? readFile(file);
  return ts.createProgram({ rootNames: [...virtual.keys(), ...Object.values(ENTRIES).map((p) => join(ROOT, p))], options, host });
}

const CANNOT_FIND = new Set([2304, 2552, 2580, 2582, 2583, 2584, 18004]);
let unknown = examples.map(() => new Set<string>());
let program = compile(examples.map((e, i) => moduleOf(e, new Map(), unknown[i] as Set<string>)));
const exported = entryExports(program);
let problems: string[] = [];
for (let pass = 0; pass < 4; pass++) {
  program = compile(examples.map((e, i) => moduleOf(e, exported, unknown[i] as Set<string>)));
  problems = [];
  const next = unknown.map((s) => new Set(s));
  let found = false;
  examples.forEach((example, i) => {
    const file = program.getSourceFile(pathOf(i));
    for (const d of file ? ts.getPreEmitDiagnostics(program, file) : []) {
      const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      const name = /(?:Cannot find name|shorthand property) '([\w$]+)'/.exec(message)?.[1];
      if (CANNOT_FIND.has(d.code) && name) {
        (next[i] as Set<string>).add(name);
        found = true;
        continue;
      }
      const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : 0;
      const shown = d.file?.text.split('\n')[line]?.trim() ?? '';
      problems.push(`${example.at} (example line ${line + 1 - (d.file?.text.split('\n').indexOf('export {};') ?? 0)}): ${message}\n    ${shown}`);
    }
  });
  if (!found) break;
  unknown = next;
}

process.stdout.write(
  `tsdoc examples: ${examples.length} in ${new Set(examples.map((e) => e.at.split(':')[0])).size} files, typechecked against ${relative(ROOT, join(ROOT, 'workflows'))}/, worker/, client/\n`,
);
if (problems.length) {
  process.stderr.write(`${problems.length} problem(s):\n${problems.join('\n')}\n`);
  process.exit(1);
}
