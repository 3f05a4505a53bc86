// A caller's JSON Schema, rewritten into the subset node-llama-cpp turns into a grammar, so the
// model's calls are decoded under it: names are always offered ones, and arguments always parse
// and follow the schema's structure. Keywords the grammar cannot enforce are left out; the
// engine validates the arguments anyway.
import { acceptsNull, resolveRef } from '../activities/model/optional-nulls.js';
import type { GbnfSchema } from './llama-api.js';

type Json = Record<string, unknown>;

/** Integer ranges up to this wide are enumerated in the grammar. */
const SMALL_RANGE = 200;

const ANY_JSON: GbnfSchema = {
  oneOf: [{ type: ['string', 'number', 'boolean', 'null'] }, { type: 'object', additionalProperties: true }, { type: 'array' }],
};

const BASIC_TYPES = ['string', 'number', 'integer', 'boolean', 'null'];

/**
 * anyOf becomes oneOf, a type list with object/array splits into branches, `{}` becomes any JSON,
 * local `$ref`s are inlined, and an optional property becomes nullable: the grammar writes every
 * listed property, and the nulls written for optional ones are dropped from the reply again
 * (dropAbsentNulls, in the shared optional-nulls module).
 */
export function gbnfSchema(node: unknown, root: unknown = node, depth = 0): GbnfSchema {
  // Recursive schemas are cut off here: past this depth anything is accepted.
  if (depth > 32 || node === true || node == null) return ANY_JSON;
  if (!isObject(node)) return { type: 'null' };
  const description = typeof node.description === 'string' ? { description: node.description } : {};
  if (typeof node.$ref === 'string') {
    const target = resolveRef(node, root);
    return target === node ? ANY_JSON : gbnfSchema(target, root, depth + 1);
  }
  if ('const' in node) return { const: node.const, ...description };
  if (Array.isArray(node.enum)) return { enum: node.enum, ...description };
  const branches = node.anyOf ?? node.oneOf;
  if (Array.isArray(branches)) return { oneOf: branches.map((b) => gbnfSchema(b, root, depth + 1)), ...description };
  if (Array.isArray(node.allOf) && node.allOf.length === 1) return gbnfSchema(node.allOf[0], root, depth + 1);
  const types = typesOf(node);
  if (types.length === 0) return ANY_JSON;
  if (types.length > 1) {
    const basic = types.filter((t) => BASIC_TYPES.includes(t));
    const complex = types.filter((t) => t === 'object' || t === 'array').map((t) => gbnfSchema({ ...node, type: t }, root, depth + 1));
    const alternatives = [...(basic.length ? [{ type: basic }] : []), ...complex];
    return alternatives.length === 1 && alternatives[0] ? alternatives[0] : { oneOf: alternatives, ...description };
  }
  const [type] = types;
  if (type === 'object') return objectSchema(node, root, depth, description);
  if (type === 'array') {
    return {
      type: 'array',
      ...(isObject(node.items) ? { items: gbnfSchema(node.items, root, depth + 1) } : {}),
      ...integerKeyword(node, 'minItems'),
      ...integerKeyword(node, 'maxItems'),
      ...description,
    };
  }
  if (type === 'string') {
    if (typeof node.format === 'string' && ['date-time', 'date', 'time'].includes(node.format)) return { type: 'string', format: node.format, ...description };
    return { type: 'string', ...integerKeyword(node, 'minLength'), ...integerKeyword(node, 'maxLength'), ...description };
  }
  const { minimum, maximum } = node;
  if (type === 'integer' && Number.isInteger(minimum) && Number.isInteger(maximum) && (maximum as number) - (minimum as number) <= SMALL_RANGE) {
    // The grammar's integer has no bounds, and a small model under it tends to write digits
    // until something stops it (a `limit` of 1000000000000000, refused every time): a small
    // range is spelled out instead.
    const low = minimum as number;
    return { enum: Array.from({ length: (maximum as number) - low + 1 }, (_, i) => low + i), ...description };
  }
  if (type && BASIC_TYPES.includes(type)) return { type, ...description };
  return ANY_JSON;
}

function objectSchema(node: Json, root: unknown, depth: number, description: Json): GbnfSchema {
  if (!isObject(node.properties)) {
    const extra = node.additionalProperties;
    const additionalProperties = extra === false ? false : isObject(extra) ? gbnfSchema(extra, root, depth + 1) : true;
    return { type: 'object', additionalProperties, ...description };
  }
  const required = new Set(Array.isArray(node.required) ? node.required : []);
  const properties: Json = {};
  for (const [key, sub] of Object.entries(node.properties)) {
    const converted = gbnfSchema(sub, root, depth + 1);
    properties[key] =
      required.has(key) || acceptsNull(converted)
        ? converted
        : { oneOf: [converted, { type: 'null' }], ...(typeof converted.description === 'string' ? { description: converted.description } : {}) };
  }
  return { type: 'object', properties, required: Object.keys(properties), ...description };
}

function typesOf(node: Json): string[] {
  if (Array.isArray(node.type)) return node.type.filter((t): t is string => typeof t === 'string');
  if (typeof node.type === 'string') return [node.type];
  if (node.properties || node.additionalProperties !== undefined) return ['object'];
  if (node.items) return ['array'];
  return [];
}

function integerKeyword(node: Json, key: string): Json {
  return Number.isInteger(node[key]) ? { [key]: node[key] } : {};
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
