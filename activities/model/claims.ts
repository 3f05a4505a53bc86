// What a function call says beside its arguments: where each value comes from (`_sources`) and,
// for a tool that declares derivations, which one computes an argument (`_derive`). Providers'
// function calling has no place for either, so both ride as two reserved properties of every
// effect's (and egress read's) parameters, declared here once for every adapter, and are taken off
// again before the arguments reach the decision: the tool, an MCP server included, never sees them.
import type { AnyTool } from '../../workflows/tool-contract.js';
import { operandNames } from '../../workflows/controller/index.js';
type JsonObject = Record<string, unknown>;

export const SOURCES_PROPERTY = '_sources';
export const DERIVE_PROPERTY = '_derive';

/** The reserved properties a tool's parameters gain, or none for a read that keeps its arguments in the run. */
export function claimProperties(tool: AnyTool, parameters: JsonObject): JsonObject {
  if (tool.kind === 'read' && !tool.egress) return {};
  const args = parameters.properties && typeof parameters.properties === 'object' ? Object.keys(parameters.properties) : [];
  if (args.length === 0) return {};
  const reference = { type: 'string', description: 'e<n>.<fact key>, request.<field>, case, or model' };
  const sources = {
    type: 'object',
    description:
      'Where each argument value comes from: a fact as <evidence id>.<fact key> (e3.scheduled.7.recipient), a typed field of a signed note as request.<field>, case, or model if you wrote it. A list argument cites one reference per value.',
    properties: Object.fromEntries(args.map((name) => [name, { anyOf: [reference, { type: 'array', items: reference }] }])),
    additionalProperties: false,
  };
  return { [SOURCES_PROPERTY]: sources, ...deriveProperty(tool) };
}

function deriveProperty(tool: AnyTool): JsonObject {
  const rules = Object.entries(tool.derivations ?? {});
  if (rules.length === 0) return {};
  const byArg = new Map<string, [string, { formula: string; describe: string }][]>();
  for (const [name, rule] of rules) byArg.set(rule.arg, [...(byArg.get(rule.arg) ?? []), [name, rule]]);
  const operand = { anyOf: [{ type: 'number' }, { type: 'string', description: 'a fact as <evidence id>.<fact key>' }] };
  const properties = Object.fromEntries(
    [...byArg].map(([arg, named]) => {
      const operands = [...new Set(named.flatMap(([, rule]) => operandNames(rule.formula)))];
      return [
        arg,
        {
          type: 'object',
          description: `A declared way to compute ${arg}: ${named.map(([name, rule]) => `${name} = ${rule.formula} (${rule.describe})`).join('; ')}. Bind each operand of the rule you pick.`,
          properties: {
            rule: { type: 'string', enum: named.map(([name]) => name) },
            operands: { type: 'object', properties: Object.fromEntries(operands.map((o) => [o, operand])), additionalProperties: false },
          },
          required: ['rule', 'operands'],
          additionalProperties: false,
        },
      ];
    }),
  );
  return {
    [DERIVE_PROPERTY]: { type: 'object', description: 'How an argument is computed, when no source states it.', properties, additionalProperties: false },
  };
}

/**
 * A call's arguments without the reserved properties, and what those said (nulls are "left out").
 * Only a function that offers them has them: a read's own argument of that name stays its own.
 */
export function splitClaims(offered: JsonObject, args: JsonObject): { args: JsonObject; sources?: JsonObject; derive?: JsonObject } {
  const properties = offered.properties && typeof offered.properties === 'object' ? offered.properties : {};
  if (!(SOURCES_PROPERTY in properties)) return { args };
  const { [SOURCES_PROPERTY]: sources, [DERIVE_PROPERTY]: derive, ...rest } = args;
  return { args: rest, ...compact('sources', sources), ...compact('derive', derive) };
}

function compact<K extends string>(key: K, value: unknown): Partial<Record<K, JsonObject>> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  const kept = Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined));
  return Object.keys(kept).length ? ({ [key]: kept } as Partial<Record<K, JsonObject>>) : {};
}
