// Small readers over the compiled context, shared by the domains' rules policies. They only
// look at typed facts and statuses, never at quoted tool text: the rules model is as immune
// to injected instructions as the controller.
import type { CompiledContext, ContextEvidence } from '../workflows/public.js';

export interface KnownFact {
  value: unknown;
  evidenceId: string;
}

/** Latest value of every fact the model can see, from pinned facts or from the evidence shown. */
export function knownFacts(context: CompiledContext): Map<string, KnownFact> {
  const facts = new Map<string, KnownFact>();
  for (const e of context.evidence) {
    if (e.status !== 'ok') continue;
    for (const [key, value] of Object.entries(e.facts)) facts.set(key, { value, evidenceId: e.id });
  }
  for (const p of context.pinned) if (!facts.has(p.key)) facts.set(p.key, { value: p.value, evidenceId: p.evidenceId });
  return facts;
}

export function evidenceOf(context: CompiledContext, tool: string): ContextEvidence[] {
  return context.evidence.filter((e) => e.tool === tool);
}

/** The controller's most recent feedback, e.g. a rejected finish. */
export function lastControl(context: CompiledContext): { code: string; message: string } | undefined {
  const entry = [...context.transcript].reverse().find((t) => t.kind === 'control');
  return entry && entry.kind === 'control' ? { code: entry.code, message: entry.message } : undefined;
}

export const call = (...calls: { tool: string; args: unknown; sources?: Record<string, string | string[]> }[]) => ({ type: 'call', calls });
export const escalate = (reason: string) => ({ type: 'escalate', reason });
export const finish = (claim: unknown, evidence: string[], summary?: string) => ({
  type: 'finish',
  outcome: 'resolved',
  claim,
  evidence,
  ...(summary ? { summary } : {}),
});
