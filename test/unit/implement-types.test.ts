// Implementing a domain is checked by the compiler: `npm test` typechecks this file, and each
// `@ts-expect-error` below fails the typecheck if the mistake under it ever compiles.
import { describe, expect, it } from 'vitest';
import { implement } from '../../activities/implement.js';
import { defineDomain, defineTool, z } from '../../workflows/public.js';

const lookup = defineTool({
  name: 'lookup',
  description: 'read a thing',
  input: z.strictObject({ id: z.string() }),
  output: z.object({ id: z.string(), size: z.number() }),
  kind: 'read',
  idempotent: true,
  source: 's',
  authority: 'authoritative',
  maxAgeMs: 1_000,
  maxObservationBytes: 1_000,
  facts: (o) => ({ size: o.size }),
  effectiveAt: () => undefined,
  freeText: () => [],
});
const change = defineTool({
  name: 'change',
  description: 'change a thing',
  input: z.strictObject({ id: z.string() }),
  output: z.object({ changeId: z.string() }),
  kind: 'effect',
  idempotent: false,
  source: 's',
  authority: 'authoritative',
  maxAgeMs: 1_000,
  maxObservationBytes: 1_000,
  readback: 'change_by_key',
  facts: (o) => ({ change: o.changeId }),
  effectiveAt: () => undefined,
  freeText: () => [],
});
const things = defineDomain({
  name: 'things',
  goal: () => 'g',
  tools: [lookup, change],
  claim: z.strictObject({ done: z.literal(true) }),
  judgeEvidence: () => ({ kind: 'supported' }),
  defaults: { budgets: { turns: 1, toolCalls: 1, effects: 1, duplicates: 1, tokens: 1, deadlineMs: 1_000 }, context: 'full', window: 1 },
});

const probe = async () => ({ holds: true, conflict: false, decided: true, detail: '', facts: {} });

describe('implement(domain).with<Deps>()', () => {
  it('accepts a complete, well-typed implementation and hands tools their deps', async () => {
    const impl = implement(things).with<{ prefix: string }>({
      tools: {
        lookup: async (args, ctx) => ({ id: `${ctx.deps.prefix}${args.id}`, size: 1 }),
        change: async () => ({ changeId: 'c1' }),
      },
      readbacks: { change_by_key: async () => ({ applied: false }) },
      probe: async (claim) => ({ ...(await probe()), detail: String(claim.done) }),
    });
    expect(await impl.tools.lookup({ id: '7' }, { caseId: 'x', deps: { prefix: 'p-' }, timeoutMs: 1 })).toEqual({ id: 'p-7', size: 1 });
  });

  it('refuses, at compile time, a missing tool, a wrong argument type and an unknown readback', () => {
    implement(things).with({
      // @ts-expect-error -- `change` is missing
      tools: { lookup: async () => ({ id: 'a', size: 1 }) },
      readbacks: { change_by_key: async () => ({ applied: false }) },
      probe,
    });
    implement(things).with({
      tools: {
        // @ts-expect-error -- id is a string, not a number
        lookup: async (args: { id: number }) => ({ id: String(args.id), size: 1 }),
        change: async () => ({ changeId: 'c' }),
      },
      readbacks: { change_by_key: async () => ({ applied: false }) },
      probe,
    });
    implement(things).with({
      tools: { lookup: async () => ({ id: 'a', size: 1 }), change: async () => ({ changeId: 'c' }) },
      // @ts-expect-error -- no contract names a readback `nope`
      readbacks: { change_by_key: async () => ({ applied: false }), nope: async () => ({ applied: false }) },
      probe,
    });
    expect(true).toBe(true);
  });
});
