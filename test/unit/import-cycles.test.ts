// The engine's layers stay layered: no import cycle among workflows/, activities/, worker/ and
// client/, the activities never import the workflow interpreter, and nothing outside
// workflows/controller/ imports a file of it but its face, index.ts. A cycle makes module
// evaluation order matter (a constant read before its module ran is undefined) and ties layers
// that should change apart; activities that import agent.ts pull the whole interpreter, and the
// workflow SDK with it, into every activity process for one string. The graph is read from the
// sources with the TypeScript compiler's own preprocessor, so nothing is run to build it.
// `import type` edges count too: they vanish at run time, but they still couple the layers.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const ENGINE = ['workflows', 'activities', 'worker', 'client'];
const INTERPRETER = 'workflows/agent.ts';
const CONTROLLER = 'workflows/controller/';

/** Every .ts file under a folder of the repository (none when it does not exist). */
function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string): void => {
    for (const name of readdirSync(join(ROOT, at))) {
      const path = join(at, name);
      if (name === 'node_modules' || name.startsWith('.')) continue;
      if (statSync(join(ROOT, path)).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
    }
  };
  if (existsSync(join(ROOT, dir))) walk(dir);
  return out;
}

/** Every .ts file under the engine's folders, as a path relative to the repository. */
function engineFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(ROOT, dir))) {
      const path = join(dir, name);
      if (statSync(join(ROOT, path)).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
    }
  };
  for (const dir of ENGINE) walk(dir);
  return out.sort();
}

/** The engine files a file imports or re-exports, by relative specifier (`./x.js` is `./x.ts`). */
function importsOf(file: string, files: Set<string>): string[] {
  const info = ts.preProcessFile(readFileSync(join(ROOT, file), 'utf8'), true, true);
  const targets = new Set<string>();
  for (const { fileName } of info.importedFiles) {
    if (!fileName.startsWith('.')) continue;
    const target = relative(ROOT, resolve(ROOT, dirname(file), fileName)).replace(/\.js$/, '.ts');
    const candidates = [target, `${target}.ts`, join(target, 'index.ts')];
    const found = candidates.find((c) => files.has(c));
    if (found) targets.add(found);
  }
  return [...targets].sort();
}

function importGraph(): Map<string, string[]> {
  const files = engineFiles();
  const known = new Set(files);
  return new Map(files.map((f) => [f, importsOf(f, known)]));
}

/**
 * One cycle per knot of mutually importing files (a strongly connected component, Tarjan's
 * algorithm), each as the files around it with the first repeated at the end. Reporting every
 * knot at once shows all there is to untie, not one at a time.
 */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const knots: string[][] = [];
  const connect = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const knot: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      knot.push(member);
    } while (member !== file);
    if (knot.length > 1 || (graph.get(file) ?? []).includes(file)) knots.push(cycleWithin(graph, new Set(knot), file));
  };
  for (const file of graph.keys()) if (!index.has(file)) connect(file);
  return knots;
}

/** A shortest way from `start` back to itself inside one knot (breadth first), for the failure message. */
function cycleWithin(graph: Map<string, string[]>, knot: Set<string>, start: string): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const file = queue.shift()!;
    for (const next of graph.get(file) ?? []) {
      if (!knot.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (let at = file; at !== start; at = cameFrom.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, file);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

describe('the engine import graph', () => {
  const graph = importGraph();

  it('is read from the sources: the interpreter and its controller are in it', () => {
    expect(graph.get(INTERPRETER)).toContain('workflows/controller/index.ts');
    expect(graph.size).toBeGreaterThan(50);
  });

  it('finds every cycle, each as a path round it (the check itself can fail)', () => {
    const planted = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts', 'd.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
    ]);
    expect(cycles(planted)).toEqual([
      ['a.ts', 'b.ts', 'c.ts', 'a.ts'],
      ['e.ts', 'e.ts'],
    ]);
    expect(cycles(new Map([...planted].filter(([f]) => f !== 'c.ts' && f !== 'e.ts')))).toEqual([]);
  });

  it('reaches into the controller only through its face: outside workflows/controller/, nothing imports a file of it but index.ts', () => {
    const deep = (imports: [string, string[]][]) =>
      imports.flatMap(([file, targets]) =>
        file.startsWith(CONTROLLER) ? [] : targets.filter((t) => t.startsWith(CONTROLLER) && t !== `${CONTROLLER}index.ts`).map((t) => `${file} -> ${t}`),
      );
    expect(deep([...graph])).toEqual([]);
    // The examples, the eval, the console, the demo and the bench are held to it too.
    const others = ['domains', 'eval', 'console', 'demo', 'bench', 'examples'].flatMap((dir) => sourceFiles(dir));
    const all = new Set([...graph.keys(), ...others, ...[...graph.values()].flat()]);
    expect(deep(others.map((f) => [f, importsOf(f, all)]))).toEqual([]);
    // The check can fail: a deep import is named.
    expect(deep([['client/x.ts', [`${CONTROLLER}state.ts`, `${CONTROLLER}index.ts`]]])).toEqual([`client/x.ts -> ${CONTROLLER}state.ts`]);
  });

  it('has no import cycle among workflows/, activities/, worker/ and client/', () => {
    expect(cycles(graph).map((cycle) => `import cycle: ${cycle.join(' -> ')}`)).toEqual([]);
  });

  it('keeps the workflow interpreter out of the activities, directly or through another file', () => {
    const reaches = (from: string): string[] | null => {
      const cameFrom = new Map<string, string>([[from, from]]);
      const queue = [from];
      while (queue.length) {
        const file = queue.shift()!;
        if (file === INTERPRETER) {
          const path = [file];
          for (let at = file; at !== from; at = cameFrom.get(at)!) path.unshift(cameFrom.get(at)!);
          return path;
        }
        for (const next of graph.get(file) ?? []) {
          if (cameFrom.has(next)) continue;
          cameFrom.set(next, file);
          queue.push(next);
        }
      }
      return null;
    };
    const offenders = [...graph.keys()].filter((f) => f.startsWith('activities/')).flatMap((f) => reaches(f)?.join(' -> ') ?? []);
    expect(offenders).toEqual([]);
  });
});
