// A newcomer follows one event through next() by opening the files its code runs in: the fewer,
// the easier (issue 45). bench/controller-walk.ts measures it on an instrumented copy of the
// controller, playing an incident run (a read, a restart, a finish, the probe's verdict); this
// holds the controller to what it was brought to, so a change that spreads one event over more
// files, or stacks another import floor, says so here instead of drifting.
import { describe, expect, it } from 'vitest';
import { measureWalk } from '../../bench/controller-walk.js';

/** The most files one event may visit, and the deepest chain of imports under workflows/ (in files; 18 on 9cd9d36). */
const MOST_FILES = 12;
const MOST_FLOORS = 16;

describe("the controller's walk", () => {
  it(`takes every event of the run through at most ${MOST_FILES} files, and workflows/ stacks at most ${MOST_FLOORS} import floors`, async () => {
    const { rows, floors } = await measureWalk();
    // The run was played to its end: every event of it was measured, the restart among them.
    expect(rows.map((r) => r.event)).toContain('proposed: restart_service (effect)');
    expect(rows.length).toBe(7);
    const over = rows.filter((r) => r.files.length > MOST_FILES).map((r) => `${r.event}: ${r.files.join(' ')}`);
    expect(over).toEqual([]);
    expect(floors).toBeLessThanOrEqual(MOST_FLOORS);
  });
});
