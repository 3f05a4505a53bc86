// Why this exists: the scripted models propose AgentDojo's ground-truth calls, and a call whose
// arguments leave the run must say where each value came from (its `sources`). A competent model
// cites what it read: the newest fact of the argument's kind from a read that is the authority on
// it, else a typed field of the user's signed request (for an argument without a kind, any
// signed field or fact that holds it). Where it has neither it cites where it saw
// the value (a fact of some other read) or itself, and the engine judges that like any model's
// claim. This is the model's side of provenance by reference; the engine checks every reference
// and never looks for one itself.
import { type CompiledContext, kindOrNone, spelled } from '../../workflows/controller/index.js';
import type { Domain } from '../../workflows/contract.js';

type Leaf = string | number;

export function citeSources(
  tool: string,
  args: Record<string, unknown>,
  context: CompiledContext,
  domain: Domain,
): Record<string, string | string[]> | undefined {
  const contract = domain.tools.find((t) => t.name === tool);
  const kinds = (contract?.argKinds ?? {}) as Record<string, string | undefined>;
  const sources: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(args)) {
    if (contract?.narrativeArgs?.includes(name)) continue;
    const kind = kinds[name];
    const refs = leaves(value).map((leaf) => citeOne(leaf, kind, context, domain));
    if (refs.length) sources[name] = Array.isArray(value) ? refs : (refs[0] as string);
  }
  return Object.keys(sources).length ? sources : undefined;
}

function citeOne(value: Leaf, kind: string | undefined, context: CompiledContext, domain: Domain): string {
  const newestFirst = context.evidence.filter((e) => e.status === 'ok').reverse();
  const equal = (fact: unknown) => (typeof fact === 'string' || typeof fact === 'number') && spelled(fact) === spelled(value);
  if (kind === undefined) {
    // Without a kind: a signed field that holds it, else where it was seen, else itself.
    const field = context.notes.flatMap((n) => (n.signed ? Object.entries(n.fields ?? {}) : [])).find(([, f]) => [f].flat().some(equal))?.[0];
    if (field !== undefined) return `request.${field}`;
    const read = newestFirst.find((e) => Object.values(e.facts).some(equal));
    const key = read && Object.entries(read.facts).find(([, fact]) => equal(fact))?.[0];
    return read && key !== undefined ? `${read.id}.${key}` : 'model';
  }
  for (const e of newestFirst) {
    const read = domain.tools.find((t) => t.name === e.tool);
    if (!read?.vouchesFor?.includes(kind)) continue;
    const key = Object.entries(e.facts).find(([k, fact]) => equal(fact) && kindOrNone(read.factKind, k) === kind)?.[0];
    if (key !== undefined) return `${e.id}.${key}`;
  }
  if (context.notes.some((n) => n.signed && [n.fields?.[kind] ?? []].flat().some((f) => spelled(f) === spelled(value)))) return `request.${kind}`;
  for (const e of newestFirst) {
    const key = Object.entries(e.facts).find(([, fact]) => equal(fact))?.[0];
    if (key !== undefined) return `${e.id}.${key}`;
  }
  return 'model';
}

function leaves(value: unknown): Leaf[] {
  if (typeof value === 'string' || typeof value === 'number') return [value];
  return Array.isArray(value) ? value.flatMap(leaves) : [];
}
