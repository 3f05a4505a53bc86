// What an export must carry for the rule set it says it was made under. An export stripped of
// its generation (no `ruleSet`) would otherwise be judged by the laxest rules there ever were,
// and one of this release's rule set without `chain` or `approvalTools` could not have its
// digests or its effects checked; so those are failures, not gaps. The auditor may also set a
// floor (`engine-vN`, workflows/rule-set.ts) below which an export is refused.
import { RULE_SET } from '../workflows/rule-set.js';
import type { RunExport } from './export-schema.js';

export interface GenerationOptions {
  /** Refuse exports of a rule set older than this one (`engine-vN`). */
  minRuleSet?: string;
  /** Accept an export that names no rule set and no 0.2.x guardVersion (by default it is refused). */
  acceptUnversioned?: boolean;
}

/** `engine-v6` -> 6; undefined for anything else. */
export function ruleSetNumber(ruleSet: string): number | undefined {
  const m = /^engine-v(\d{1,6})$/.exec(ruleSet);
  return m ? Number(m[1]) : undefined;
}

/** Why the export falls short of its generation or of the auditor's minimum; empty when it does not. */
export function generationProblems(record: Pick<RunExport, 'ruleSet' | 'guardVersion' | 'chain' | 'approvalTools'>, options: GenerationOptions): string[] {
  const problems: string[] = [];
  const current = ruleSetNumber(RULE_SET);
  const min = options.minRuleSet === undefined ? undefined : ruleSetNumber(options.minRuleSet);
  if (options.minRuleSet !== undefined && min === undefined) problems.push(`the minimum rule set '${options.minRuleSet}' is not of the form engine-v<N>`);

  if (record.ruleSet === undefined) {
    if (record.guardVersion === undefined && !options.acceptUnversioned) {
      problems.push(
        'the export names no rule set (no ruleSet, no guardVersion), so nothing says which checks it must pass; refused unless unversioned exports are accepted',
      );
    }
    const made = record.guardVersion === 2 ? 'a 0.2.x export (made before rule sets)' : 'an unversioned export';
    if (min !== undefined) problems.push(`${made} is below the minimum rule set engine-v${min}`);
    return problems;
  }
  const n = ruleSetNumber(record.ruleSet);
  if (n === undefined || current === undefined) return [...problems, `the rule set '${record.ruleSet}' is not one this verifier knows (engine-v<N>)`];
  if (n > current) return [...problems, `the rule set ${record.ruleSet} is newer than this verifier's ${RULE_SET}: verify it with the release that made it`];
  if (n === current) {
    if (record.chain === undefined) problems.push(`an export of ${record.ruleSet} must name its chain (approval digests cover it), and this one does not`);
    if (record.approvalTools === undefined)
      problems.push(`an export of ${record.ruleSet} must list its approvalTools (which effects need approval), and this one does not`);
  }
  if (min !== undefined && n < min) problems.push(`the export's rule set ${record.ruleSet} is below the minimum engine-v${min}`);
  return problems;
}
