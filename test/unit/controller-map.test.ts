// The controller's map (workflows/controller/README.md) stays true: every event and every phase
// has its place in the events × phases grid, and every file of the controller is on the map
// under a concern, so a new file or event cannot be added without saying where it belongs. And
// the table stays the one place that says where an event goes next: no handler's file imports
// another's.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RunEvent } from '../../workflows/controller/events.js';
import { Phase } from '../../workflows/controller/state.js';

const dir = new URL('../../workflows/controller/', import.meta.url);
const map = readFileSync(new URL('README.md', dir), 'utf8');
function section(title: string): string {
  const start = map.indexOf(`## ${title}`);
  const end = map.indexOf('\n## ', start + 1);
  return map.slice(start, end < 0 ? undefined : end);
}
const rows = (text: string) => text.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| ---'));
const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);

describe('the controller map', () => {
  it('the events × phases grid has a row for every event and a column for every phase but terminal', () => {
    const grid = rows(section('Events × phases'));
    const [header, ...body] = grid.slice(
      0,
      grid.findIndex((l) => l.startsWith('| phase ')),
    );
    const events = body.flatMap((l) => ticked(l.split('|')[1] ?? ''));
    const types = RunEvent.options.map((o) => o.shape.type.value);
    expect([...events].sort()).toEqual([...types].sort());
    const phases = (header ?? '')
      .split('|')
      .map((c) => c.trim())
      .filter((c) => c && c !== 'event');
    const names = Phase.options.map((o) => o.shape.name.value);
    expect(phases).toEqual(names.filter((p) => p !== 'terminal'));
    const commands = grid.slice(grid.findIndex((l) => l.startsWith('| phase ')) + 1).map((l) => ticked(l.split('|')[1] ?? '')[0]);
    expect(commands).toEqual(names);
  });

  it('every file of the controller is on the map under a concern, and the map names no file that is not there', () => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'index.ts');
    const named = rows(section('Files by concern'))
      .slice(1)
      .flatMap((l) => ticked(l.split('|')[2] ?? ''))
      .filter((name) => name.endsWith('.ts'));
    expect([...new Set(named)].sort()).toEqual(files.sort());
  });

  it("no handler's file imports another handler's: where one phase leads into another's work, next.ts's table says so", () => {
    const source = (file: string) => readFileSync(new URL(file, dir), 'utf8');
    // The files next.ts takes an event handler (`on…`) from; transitions.ts holds the moves every handler shares.
    const handlerFiles = [...source('next.ts').matchAll(/^import \{([^}]*)\} from '\.\/([a-z-]+\.js)';$/gm)]
      .filter((m) => /\bon[A-Z]/.test(m[1] as string))
      .map((m) => (m[2] as string).replace(/\.js$/, '.ts'))
      .filter((f) => f !== 'transitions.ts');
    expect(handlerFiles.sort()).toEqual(['approvals.ts', 'cancel.ts', 'observed.ts', 'proposals.ts', 'verified.ts']);
    const crossings = handlerFiles.flatMap((file) =>
      [...source(file).matchAll(/from '\.\/([a-z-]+)\.js'/g)]
        .map((m) => `${m[1] as string}.ts`)
        .filter((t) => handlerFiles.includes(t))
        .map((t) => `${file} -> ${t}`),
    );
    expect(crossings).toEqual([]);
  });
});
