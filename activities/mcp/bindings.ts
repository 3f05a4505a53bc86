// The domain's declarations beside what the MCP server says about its tools. A server's
// annotations (readOnlyHint, idempotentHint, destructiveHint) are hints written by whoever wrote
// the server; the engine never acts on them. This report puts them next to the contract each
// tool is bound to and says, one line each, where they disagree: a tool the server calls
// read-only that the domain declares an effect is still an effect (key, one attempt, readback).
// Server tools no contract is bound to are listed too: the model is never offered them.
import { z } from 'zod';
import type { AnyTool } from '../../workflows/tool-contract.js';
import type { McpToolInfo } from './tool-info.js';

interface MarkedSource {
  readonly name: string;
  listTools(): Promise<McpToolInfo[]>;
}

interface BindingMark {
  source: MarkedSource;
  mcpTool: string;
  role: 'tool' | 'readback';
  keyArg?: string;
}

const marks = new WeakMap<object, BindingMark>();

/** Remembers which server tool a function calls, so a report can find it in an implementation. */
export function markBinding(fn: object, mark: BindingMark): void {
  marks.set(fn, mark);
}

/** What the report needs of an implementation (any `implement(...).with(...)` result fits). */
export interface BoundImplementation {
  domain: { name: string; tools: readonly AnyTool[] };
  tools: object;
  readbacks: object;
}

export interface DeclaredContract {
  kind: 'read' | 'effect';
  idempotent: boolean;
  authority: string;
  source: string;
  maxAgeMs: number;
  subject: boolean;
  freeText: boolean;
  precondition: boolean;
  readback?: string;
  businessKey: boolean;
  approval: boolean;
}

export interface BindingRow {
  /** The contract's name, or the readback's. */
  name: string;
  role: 'tool' | 'readback';
  mcpTool: string;
  /** Whether the server lists the tool now; a call to an unlisted tool is refused. */
  listed: boolean;
  /** Tools only: what the domain declares, which is what the engine acts on. */
  declared?: DeclaredContract;
  annotations?: McpToolInfo['annotations'];
  /** What the annotations alone would suggest (MCP's defaults: not read-only, not idempotent). */
  suggested?: { kind: 'read' | 'effect'; idempotent: boolean };
  /** Whether the server's input schema takes the idempotency key as an argument. */
  keyArgument: boolean;
  warnings: string[];
}

export interface BindingReport {
  source: string;
  domain: string;
  /** How many tools the server lists. */
  listed: number;
  rows: BindingRow[];
  /** The domain's contracts implemented otherwise than through this source. */
  unbound: string[];
  /** Server tools no contract or readback is bound to: never offered to the model. */
  undeclared: string[];
  /** Every row's warnings, prefixed with the row. */
  warnings: string[];
}

export async function describeBindings(source: MarkedSource, implementation: BoundImplementation, keyArgument: string): Promise<BindingReport> {
  const listing = new Map((await source.listTools()).map((t) => [t.name, t]));
  const rows: BindingRow[] = [];
  const unbound: string[] = [];
  const used = new Set<string>();
  const tools = implementation.tools as Record<string, unknown>;
  const readbacks = implementation.readbacks as Record<string, unknown>;

  for (const contract of implementation.domain.tools) {
    const mark = markOf(tools[contract.name], source);
    if (!mark) {
      unbound.push(contract.name);
      continue;
    }
    used.add(mark.mcpTool);
    rows.push(toolRow(contract, mark.mcpTool, listing.get(mark.mcpTool), keyArgument, readbacks));
  }
  for (const [name, fn] of Object.entries(readbacks)) {
    const mark = markOf(fn, source);
    if (!mark) continue;
    used.add(mark.mcpTool);
    rows.push(readbackRow(name, mark.mcpTool, listing.get(mark.mcpTool), mark.keyArg ?? keyArgument));
  }
  const undeclared = [...listing.keys()].filter((name) => !used.has(name)).sort();
  return {
    source: source.name,
    domain: implementation.domain.name,
    listed: listing.size,
    rows,
    unbound,
    undeclared,
    warnings: rows.flatMap((r) => r.warnings.map((w) => `${r.name} -> ${r.mcpTool}: ${w}`)),
  };
}

function markOf(fn: unknown, source: MarkedSource): BindingMark | undefined {
  const mark = typeof fn === 'function' ? marks.get(fn) : undefined;
  return mark && mark.source === source ? mark : undefined;
}

function toolRow(contract: AnyTool, mcpTool: string, tool: McpToolInfo | undefined, keyArgument: string, readbacks: Record<string, unknown>): BindingRow {
  const declared: DeclaredContract = {
    kind: contract.kind,
    idempotent: contract.idempotent,
    authority: contract.authority,
    source: contract.source,
    maxAgeMs: contract.maxAgeMs,
    subject: typeof contract.subject === 'function',
    freeText: typeof contract.freeText === 'function',
    precondition: contract.precondition !== undefined,
    ...(contract.readback ? { readback: contract.readback } : {}),
    businessKey: typeof contract.businessKey === 'function',
    approval: contract.approval !== undefined,
  };
  const warnings: string[] = [];
  if (!tool) {
    warnings.push(`the server does not list ${mcpTool}: every call to it is refused`);
    return { name: contract.name, role: 'tool', mcpTool, listed: false, declared, keyArgument: false, warnings };
  }
  const hints = tool.annotations ?? {};
  const suggested = {
    kind: hints.readOnlyHint === true ? ('read' as const) : ('effect' as const),
    idempotent: hints.readOnlyHint === true || hints.idempotentHint === true,
  };
  const keyArg = Object.hasOwn(tool.inputSchema.properties ?? {}, keyArgument);
  const attempts = declared.idempotent ? 'up to 3 attempts with the same key' : 'one attempt';

  if (declared.kind === 'effect') {
    if (hints.readOnlyHint === true) {
      warnings.push(
        `the server annotates it read-only (readOnlyHint: true) but the domain declares an effect; treated as an effect: idempotency key, ${attempts}, read back${declared.readback ? ` by ${declared.readback}` : ''} when its outcome is unknown`,
      );
    }
    if (!keyArg) {
      warnings.push(`its input schema has no ${keyArgument} argument: the key travels only in _meta, and the server must dedupe on it there`);
    }
    if (!declared.readback) {
      warnings.push('the contract names no readback: an unknown outcome ends the run unknown_outcome');
    } else if (!Object.hasOwn(readbacks, declared.readback)) {
      warnings.push(`the readback ${declared.readback} is not implemented`);
    }
  } else {
    if (hints.readOnlyHint === false || hints.destructiveHint === true) {
      warnings.push(
        `the server annotates it as changing its environment (${hints.readOnlyHint === false ? 'readOnlyHint: false' : 'destructiveHint: true'}) but the domain declares a read; treated as a read: no key, no precondition, retried when unavailable`,
      );
    }
  }
  if (declared.idempotent && hints.idempotentHint === false && hints.readOnlyHint !== true) {
    warnings.push(`the server annotates it not idempotent (idempotentHint: false) but the domain declares it idempotent; it may be sent up to 3 times`);
  }
  if (declared.kind === 'effect' && !declared.idempotent && hints.idempotentHint === true) {
    warnings.push(`the server annotates it idempotent (idempotentHint: true) but the domain declares it not; one attempt, read back when unknown`);
  }
  warnings.push(...argumentWarnings(contract.input, tool, declared.kind === 'effect' ? keyArgument : undefined));
  return { name: contract.name, role: 'tool', mcpTool, listed: true, declared, annotations: tool.annotations, suggested, keyArgument: keyArg, warnings };
}

function readbackRow(name: string, mcpTool: string, tool: McpToolInfo | undefined, keyArg: string): BindingRow {
  if (!tool)
    return {
      name,
      role: 'readback',
      mcpTool,
      listed: false,
      keyArgument: false,
      warnings: [`the server does not list ${mcpTool}: every readback is undecided`],
    };
  const warnings: string[] = [];
  const takesKey = Object.hasOwn(tool.inputSchema.properties ?? {}, keyArg);
  if (!takesKey) warnings.push(`its input schema has no ${keyArg} argument to look the key up by`);
  const extra = (tool.inputSchema.required ?? []).filter((p) => p !== keyArg);
  if (extra.length) warnings.push(`the server requires arguments a readback does not send: ${extra.join(', ')}`);
  if (tool.annotations?.readOnlyHint === false || tool.annotations?.destructiveHint === true)
    warnings.push('the server annotates it as changing its environment; a readback must only read');
  return { name, role: 'readback', mcpTool, listed: true, annotations: tool.annotations, keyArgument: takesKey, warnings };
}

function argumentWarnings(input: z.ZodType, tool: McpToolInfo, keyArg: string | undefined): string[] {
  if (!(input instanceof z.ZodObject)) return [];
  const declared = new Set(Object.keys(input.shape as Record<string, unknown>));
  const serverProps = tool.inputSchema.properties;
  const warnings: string[] = [];
  const missing = (tool.inputSchema.required ?? []).filter((p) => !declared.has(p) && p !== keyArg);
  if (missing.length) warnings.push(`the server requires arguments the contract's input does not have: ${missing.join(', ')}`);
  if (serverProps) {
    const unknown = [...declared].filter((p) => !Object.hasOwn(serverProps, p));
    if (unknown.length) warnings.push(`the contract's input has arguments the server's schema does not name: ${unknown.join(', ')}`);
  }
  return warnings;
}

/** The report as log lines: one per binding, one per warning, and what the model is never offered. */
export function formatBindings(report: BindingReport): string[] {
  const lines = [`MCP source ${report.source} for domain ${report.domain}: the server lists ${report.listed} tools`];
  for (const row of report.rows) {
    const declared = row.declared
      ? `declared ${row.declared.kind}, ${row.declared.idempotent ? 'idempotent' : 'not idempotent'}, ${row.declared.authority}, fresh ${row.declared.maxAgeMs} ms${row.declared.precondition ? ', precondition' : ''}${row.declared.readback ? `, readback ${row.declared.readback}` : ''}${row.declared.approval ? ', approval' : ''}`
      : 'readback by key';
    const hints = row.annotations
      ? Object.entries(row.annotations)
          .filter(([k]) => k.endsWith('Hint'))
          .map(([k, v]) => `${k}: ${String(v)}`)
          .join(', ')
      : '';
    lines.push(
      `  ${row.name} -> ${row.mcpTool}${row.listed ? '' : ' (not listed)'}: ${declared}; server says ${hints || 'nothing'}${row.warnings.length ? '' : '; agrees'}`,
    );
    for (const w of row.warnings) lines.push(`    WARNING ${w}`);
  }
  if (report.unbound.length) lines.push(`  implemented without this source: ${report.unbound.join(', ')}`);
  if (report.undeclared.length) lines.push(`  never offered to the model (no contract): ${report.undeclared.join(', ')}`);
  return lines;
}
