// How far one event travels through the controller: the files whose code runs while next()
// takes it, and how often the trip returns to a file it had already left. A measure of how hard
// the controller is to read (issue 45), not of speed. `npx tsx bench/controller-walk.ts`.
//
// How: every .ts file under workflows/ is compiled into .walk-<pid>/ with each function wrapped so
// that entering and leaving it is recorded (TypeScript's own transformer API), and the incidents
// domain is compiled beside it unwrapped (domain code is not the engine's walk). A driver
// (controller-walk-run.ts) then plays one run through next(): started, a read proposed and
// observed, a restart proposed and observed, a finish proposed and the probe's verdict. For each event it prints the files visited, in order of first visit, the
// number of file changes and of returns (a change into a file visited before in that event), and
// the longest chain of imports under workflows/ (the import floors). The copy is deleted after.
// test/unit/controller-walk.test.ts holds the controller to what issue 45 asked of it.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
// Beside the sources, so the copies resolve the same packages; one per process.
const out = join(root, `.walk-${process.pid}`);

function tsFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? tsFiles(join(dir, d.name)) : d.name.endsWith('.ts') && !d.name.endsWith('.d.ts') ? [join(dir, d.name)] : [],
  );
}

/** Wraps every function body: `__walk.enter(file); try { body } finally { __walk.exit(); }`. */
function instrument(file: string): ts.TransformerFactory<ts.SourceFile> {
  return (context) => {
    const f = context.factory;
    const call = (name: string, args: ts.Expression[]) =>
      f.createExpressionStatement(f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier('__walk'), name), undefined, args));
    const wrap = (body: ts.ConciseBody): ts.Block => {
      const block = ts.isBlock(body) ? body : f.createBlock([f.createReturnStatement(body)], true);
      return f.createBlock([call('enter', [f.createStringLiteral(file)]), f.createTryStatement(block, undefined, f.createBlock([call('exit', [])]))], true);
    };
    const visit = (node: ts.Node): ts.Node => {
      const n = ts.visitEachChild(node, visit, context);
      if (ts.isFunctionDeclaration(n) && n.body)
        return f.updateFunctionDeclaration(n, n.modifiers, n.asteriskToken, n.name, n.typeParameters, n.parameters, n.type, wrap(n.body));
      if (ts.isFunctionExpression(n))
        return f.updateFunctionExpression(n, n.modifiers, n.asteriskToken, n.name, n.typeParameters, n.parameters, n.type, wrap(n.body));
      if (ts.isArrowFunction(n)) return f.updateArrowFunction(n, n.modifiers, n.typeParameters, n.parameters, n.type, n.equalsGreaterThanToken, wrap(n.body));
      if (ts.isMethodDeclaration(n) && n.body)
        return f.updateMethodDeclaration(n, n.modifiers, n.asteriskToken, n.name, n.questionToken, n.typeParameters, n.parameters, n.type, wrap(n.body));
      return n;
    };
    return (sf) => ts.visitNode(sf, visit) as ts.SourceFile;
  };
}

function compile(file: string, wrapped: boolean): void {
  const source = readFileSync(join(root, file), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
    fileName: file,
    transformers: wrapped ? { before: [instrument(file.replace(/^workflows\//, ''))] } : {},
  });
  const target = join(out, file.replace(/\.ts$/, '.js'));
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, outputText);
}

/** The longest chain of relative imports among `files` (1 for a file that imports none of them). */
function importFloors(files: string[]): number {
  const imports = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    const targets = [...text.matchAll(/^(?:import|export)[^'"]*from '(\.[^']+)'/gm)].map((m) =>
      relative(root, join(dirname(join(root, file)), (m[1] as string).replace(/\.js$/, '.ts'))),
    );
    imports.set(
      file,
      targets.filter((t) => files.includes(t)),
    );
  }
  const depth = new Map<string, number>();
  const floor = (file: string, seen: Set<string>): number => {
    const known = depth.get(file);
    if (known !== undefined) return known;
    if (seen.has(file)) return 0; // a cycle: counted once
    seen.add(file);
    const d = 1 + Math.max(0, ...(imports.get(file) ?? []).map((t) => floor(t, seen)));
    seen.delete(file);
    depth.set(file, d);
    return d;
  };
  return Math.max(...files.map((f) => floor(f, new Set())));
}

interface Walk {
  files: string[];
  changes: number;
  returns: number;
}

/** Records file changes: a stack of the files being run, and every change of the one on top. */
class Recorder {
  private stack: string[] = [];
  private seen = new Set<string>();
  private current: string | undefined;
  walk: Walk = { files: [], changes: 0, returns: 0 };
  reset(): void {
    this.stack = [];
    this.seen = new Set();
    this.current = undefined;
    this.walk = { files: [], changes: 0, returns: 0 };
  }
  private moveTo(file: string | undefined): void {
    if (file === undefined || file === this.current) return;
    if (this.current !== undefined) this.walk.changes++;
    if (this.seen.has(file)) this.walk.returns++;
    else {
      this.seen.add(file);
      this.walk.files.push(file);
    }
    this.current = file;
  }
  enter(file: string): void {
    this.stack.push(file);
    this.moveTo(file);
  }
  exit(): void {
    this.stack.pop();
    this.moveTo(this.stack.at(-1));
  }
}

export interface WalkReport {
  rows: Array<{ event: string } & Walk>;
  /** The longest chain of imports under workflows/, counted in files. */
  floors: number;
  engineFiles: number;
}

/** Plays the walk's run through an instrumented copy of the controller and measures it. */
export async function measureWalk(): Promise<WalkReport> {
  rmSync(out, { recursive: true, force: true });
  const engine = tsFiles('workflows');
  try {
    for (const file of engine) compile(file, true);
    for (const file of tsFiles('domains/incidents')) compile(file, false);
    compile('domains/policy-helpers.ts', false);
    writeFileSync(join(out, 'package.json'), JSON.stringify({ type: 'module' }));
    const recorder = new Recorder();
    (globalThis as { __walk?: Recorder }).__walk = recorder;
    const load = (path: string) => import(pathToFileURL(join(out, path)).href);
    const { next, initialState } = await load('workflows/controller/next.js');
    const { domainDefaults } = await load('workflows/contract.js');
    const { incidents } = await load('domains/incidents/domain.js');
    const { walkEvents } = await import('./controller-walk-run.js');
    const rows: WalkReport['rows'] = [];
    for (const { event, take } of walkEvents({ next, initialState, domainDefaults, domain: incidents })) {
      recorder.reset();
      take();
      rows.push({ event, ...recorder.walk });
    }
    return { rows, floors: importFloors(engine), engineFiles: engine.length };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { rows, floors, engineFiles } = await measureWalk();
  for (const r of rows)
    process.stdout.write(
      `${r.event.padEnd(34)} files ${String(r.files.length).padStart(3)}  changes ${String(r.changes).padStart(4)}  returns ${String(r.returns).padStart(4)}  ${r.files.join(' ')}\n`,
    );
  const most = rows.reduce((a, b) => (b.files.length > a.files.length ? b : a));
  process.stdout.write(`\nmost files for one event: ${most.files.length} (${most.event}), ${most.returns} returns\n`);
  process.stdout.write(`import floors under workflows/: ${floors} (${engineFiles} files)\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
