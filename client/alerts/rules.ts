// A team's alert rules as data beside its domain, and Prometheus' rule file made from them, so
// the rules that fire and the domain whose runs they start are one source (`agent alert-rules`).
// JSON is YAML: the file is written as JSON.

import { z } from 'zod';

/** One alerting rule, as Prometheus' rule file has it; checked where a team's module hands it over. */
export const AlertRule = z.strictObject({
  alert: z.string().regex(/^[A-Za-z_:][A-Za-z0-9_:]*$/, 'an alert name is a Prometheus metric name'),
  expr: z.string().min(1),
  /** How long the condition must hold before it fires, e.g. `0s`, `30s`. */
  for: z
    .string()
    .regex(/^\d+(ms|s|m|h|d|w|y)$/, 'a duration such as 30s')
    .optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
});
/** One alerting rule, as Prometheus' rule file has it (`alert`, `expr`, `for`, `labels`, `annotations`). */
export type AlertRule = z.infer<typeof AlertRule>;

/** The rule group's name when none is given. */
export const RULE_GROUP = 'agent-alerts';

/**
 * Prometheus' rule file for these alerting rules, as an object: write it as JSON, which is YAML,
 * and name the file in `rule_files`. One group, `group` (default `agent-alerts`).
 */
export function prometheusRuleFile(rules: readonly AlertRule[], group = RULE_GROUP): { groups: { name: string; rules: AlertRule[] }[] } {
  return { groups: [{ name: group, rules: [...rules] }] };
}
