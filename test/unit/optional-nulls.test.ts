// Optional properties under constrained decoding (activities/model/optional-nulls.ts), one rule
// for the engine's adapters and model-local: a null that stands for "left out" is removed, a null
// the schema allows is kept, and references into $defs are followed.
import { describe, expect, it } from 'vitest';
import { acceptsNull, dropAbsentNulls } from '../../activities/model/optional-nulls.js';

describe('acceptsNull', () => {
  it.each([
    [{ type: 'null' }, true],
    [{ type: ['string', 'null'] }, true],
    [{ const: null }, true],
    [{ enum: ['a', null] }, true],
    [{ anyOf: [{ type: 'string' }, { type: 'null' }] }, true],
    [{ oneOf: [{ type: 'string' }, { type: 'null' }] }, true],
    [{ allOf: [{ type: ['string', 'null'] }] }, true],
    [{ type: 'string' }, false],
    [{ enum: ['a'] }, false],
    [{ anyOf: [{ type: 'string' }, { type: 'number' }] }, false],
    [{}, false],
    [undefined, false],
  ])('%j -> %s', (schema, expected) => {
    expect(acceptsNull(schema)).toBe(expected);
  });

  it('follows a reference into the root', () => {
    const root = { $defs: { maybe: { type: ['string', 'null'] } } };
    expect(acceptsNull({ $ref: '#/$defs/maybe' }, root)).toBe(true);
    expect(acceptsNull({ $ref: '#/$defs/missing' }, root)).toBe(false);
  });
});

describe('dropAbsentNulls', () => {
  const schema = {
    type: 'object',
    properties: {
      id: { type: 'string' },
      note: { type: 'string' },
      cleared: { type: ['string', 'null'] },
      must: { type: ['string', 'null'] },
      items: { type: 'array', items: { $ref: '#/$defs/item' } },
    },
    required: ['id', 'must'],
    $defs: { item: { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'integer' } }, required: ['sku'] } },
  };

  it('removes nulls of optional properties, keeps nulls the schema allows, and follows $ref into arrays', () => {
    const value = { id: 'a', note: null, cleared: null, must: null, items: [{ sku: 'x', qty: null }] };
    expect(dropAbsentNulls(value, schema)).toEqual({ id: 'a', cleared: null, must: null, items: [{ sku: 'x' }] });
  });

  it('keeps a required null, even when the schema does not allow it (the contract refuses it later)', () => {
    expect(dropAbsentNulls({ id: null, must: 'm' }, schema)).toEqual({ id: null, must: 'm' });
  });

  it('stops at a reference cycle instead of hanging', () => {
    const cyclic = { $ref: '#/$defs/a', $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } } };
    expect(dropAbsentNulls({ x: null }, cyclic)).toEqual({ x: null });
  });

  it('leaves a "__proto__" key from the model as plain data', () => {
    const out = dropAbsentNulls(JSON.parse('{"id":"a","__proto__":{"polluted":true}}'), schema) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
