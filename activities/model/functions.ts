// The functions a model is offered: every domain tool, plus finish and escalate, declared from
// the zod contracts (plus, for calls whose arguments leave the run, where each value comes from:
// claims.ts). Provider-neutral: each adapter hands these names, descriptions and JSON schemas to
// its own wire format, and reads arguments back through `argumentsFor`, so the contracts say the
// same thing to every model.
import { ErrorTypes } from '../../workflows/policy.js';
import { ApplicationFailure } from '@temporalio/activity';
import { z } from 'zod';
import type { Domain } from '../../workflows/contract.js';
import { claimProperties } from './claims.js';
import { acceptsNull, dropAbsentNulls } from './optional-nulls.js';
import { EXTRACTED_DESCRIPTION, EXTRACTED_FUNCTION, extractedInput, PLAN_DESCRIPTION, PLAN_FUNCTION, planInput, type Mode } from './plan-functions.js';

export const FINISH_FUNCTION = 'finish';
export const ESCALATE_FUNCTION = 'escalate';

export type JsonObject = Record<string, unknown>;

export interface FunctionSpec {
  name: string;
  description: string;
  /** The contract as JSON Schema, as zod wrote it. */
  loose: JsonObject;
  /** Rewritten for strict decoding (every object closed, optional fields nullable), when JSON Schema allows it. */
  strict: JsonObject | undefined;
}

export interface DomainFunctions {
  specs: FunctionSpec[];
  byName: Map<string, FunctionSpec>;
}

/**
 * What one turn offers: every domain tool, finish and escalate (`act`); the same and `plan` for a
 * planner (shape `plan`); only `extracted` for an extractor, which has no tools.
 */
export function domainFunctions(domain: Domain, mode: Mode = 'act'): DomainFunctions {
  if (mode === 'extract') {
    const spec = functionSpec(EXTRACTED_FUNCTION, EXTRACTED_DESCRIPTION, extractedInput);
    return { specs: [spec], byName: new Map([[spec.name, spec]]) };
  }
  const finishInput = z.strictObject({
    claim: domain.claim.describe('What you claim about the case, in the domain claim shape.'),
    evidence: z.array(z.string()).min(1).max(50).describe('Ids of the evidence items that support the claim.'),
    summary: z.string().max(1_000).optional().describe('One or two sentences for the humans reading the receipt.'),
  });
  const escalateInput = z.strictObject({
    reason: z.string().min(1).max(500).describe('Why a human has to take over.'),
  });
  const specs = [
    ...domain.tools.map((t) => functionSpec(t.name, toolDescription(t), t.input, (loose) => claimProperties(t, loose))),
    functionSpec(
      FINISH_FUNCTION,
      'Declare the case resolved. Only when fresh authoritative evidence supports the claim; the runtime checks the cited evidence and may verify live before accepting. Must be the only call in its reply.',
      finishInput,
    ),
    functionSpec(
      ESCALATE_FUNCTION,
      'Hand the case to a human: conflicting authoritative sources, a blocked or unsafe action, or no safe next step. Must be the only call in its reply.',
      escalateInput,
    ),
    ...(mode === 'plan' ? [functionSpec(PLAN_FUNCTION, PLAN_DESCRIPTION, planInput(domain))] : []),
  ];
  const byName = new Map(specs.map((s) => [s.name, s]));
  if (byName.size !== specs.length) {
    const reserved = [FINISH_FUNCTION, ESCALATE_FUNCTION, ...(mode === 'plan' ? [PLAN_FUNCTION] : [])].join(', ');
    throw ApplicationFailure.nonRetryable(`domain ${domain.name} has a tool named like one of the engine's functions (${reserved})`, ErrorTypes.modelConfig);
  }
  return { specs, byName };
}

/** Memoised per domain and mode: the schemas are rebuilt only when a worker sees a domain first. */
export function functionsCache(): (domain: Domain, mode?: Mode) => DomainFunctions {
  const byDomain = new Map<string, DomainFunctions>();
  return (domain, mode = 'act') => {
    const key = `${mode} ${domain.name}`;
    let functions = byDomain.get(key);
    if (!functions) {
      functions = domainFunctions(domain, mode);
      byDomain.set(key, functions);
    }
    return functions;
  };
}

/** The model's arguments as the contract reads them: nulls that stood for "left out" removed. */
export function argumentsFor(spec: FunctionSpec, args: JsonObject): JsonObject {
  return dropAbsentNulls(args, spec.loose) as JsonObject;
}

function toolDescription(t: Domain['tools'][number]): string {
  if (t.kind === 'read') return `${t.description} [read-only]`;
  const approval = t.approval ? `; needs approval by ${t.approval.roles.join(' or ')}` : '';
  return `${t.description} [changes the world${approval}]`;
}

function functionSpec(name: string, description: string, input: z.ZodType, claims?: (loose: JsonObject) => JsonObject): FunctionSpec {
  // `unrepresentable: 'any'` turns what JSON Schema cannot say into `{}`, which then simply
  // falls back to a non-strict function instead of failing the call.
  const { $schema: _ignored, ...contract } = z.toJSONSchema(input, { io: 'input', unrepresentable: 'any' }) as JsonObject;
  const extra = claims?.(contract) ?? {};
  const properties = isObject(contract.properties) ? contract.properties : {};
  for (const reserved of Object.keys(extra)) {
    if (reserved in properties)
      throw ApplicationFailure.nonRetryable(`tool ${name} has an argument named ${reserved}, which the engine reserves`, ErrorTypes.modelConfig);
  }
  const loose = Object.keys(extra).length ? { ...contract, properties: { ...properties, ...extra } } : contract;
  return { name, description, loose, strict: strictSchema(loose) };
}

// Strict mode constrains decoding to the schema, but only for a subset of JSON Schema: every
// object closed, every property listed as required. Optional properties become nullable
// instead, and a null from the model is read back as "left out" (optional-nulls.ts).
const UNSTRICTABLE_KEYWORDS = ['allOf', 'not', 'if', 'then', 'else', 'patternProperties', 'prefixItems', 'dependentSchemas'];

function strictSchema(schema: JsonObject): JsonObject | undefined {
  if (schema.type !== 'object' || !isObject(schema.properties)) return undefined; // strict functions take an object
  return strictNode(schema);
}

function strictNode(node: unknown): JsonObject | undefined {
  if (!isObject(node) || UNSTRICTABLE_KEYWORDS.some((k) => k in node)) return undefined;
  const out: JsonObject = { ...node };
  if (node.type === 'object' || 'properties' in node) {
    if (!isObject(node.properties)) return undefined; // a free-form record cannot be closed
    if (node.additionalProperties !== undefined && node.additionalProperties !== false) return undefined;
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    const properties: JsonObject = {};
    for (const [key, sub] of Object.entries(node.properties)) {
      const strict = strictNode(sub);
      if (!strict) return undefined;
      properties[key] = required.has(key) || acceptsNull(strict) ? strict : nullable(strict);
    }
    Object.assign(out, { properties, required: Object.keys(properties), additionalProperties: false });
  }
  if ('items' in node) {
    const items = strictNode(node.items);
    if (!items) return undefined;
    out.items = items;
  }
  if ('anyOf' in node && 'oneOf' in node) return undefined;
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    if (!(keyword in node)) continue;
    const branches = node[keyword];
    if (!Array.isArray(branches)) return undefined;
    const strict = branches.map(strictNode);
    if (strict.some((b) => b === undefined)) return undefined;
    delete out.oneOf; // strict mode knows anyOf only; zod's oneOf branches are exclusive anyway
    out.anyOf = strict;
  }
  for (const keyword of ['$defs', 'definitions'] as const) {
    const defs = node[keyword];
    if (defs === undefined) continue;
    if (!isObject(defs)) return undefined;
    const strict = Object.entries(defs).map(([k, d]) => [k, strictNode(d)] as const);
    if (strict.some(([, d]) => d === undefined)) return undefined;
    out[keyword] = Object.fromEntries(strict);
  }
  // `{}` (zod's unknown or any) accepts everything, which strict mode cannot express.
  const constrained = ['type', 'anyOf', 'enum', 'const', '$ref'].some((k) => k in out);
  return constrained ? out : undefined;
}

/** The description stays on the property, where the model reads it, not inside a branch. */
function nullable({ description, ...schema }: JsonObject): JsonObject {
  return { ...(description !== undefined ? { description } : {}), anyOf: [schema, { type: 'null' }] };
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
