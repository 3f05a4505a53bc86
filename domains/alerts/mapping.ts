// How an alert group becomes an alerts run: the incident is the group's `case_id` label (the
// rules in rules.ts group by it), checked against the shape of an incident id; anything else is
// ignored, not guessed. The label picks the case; it is never a fact the run relies on.
// `npx agent alerts --mapping domains/alerts/mapping.ts` loads `mapAlertGroup`.
import type { AlertGroup, AlertMapping } from '../../client/alerts/public.js';
import type { ModelConfig } from '../../workflows/public.js';

const INCIDENT = /^INC-[0-9A-Za-z-]{1,40}$/;

export function alertMapping(options: { model?: ModelConfig } = {}): AlertMapping {
  return (group: AlertGroup) => {
    const incident = group.groupLabels.case_id ?? group.commonLabels.case_id;
    if (incident === undefined) return { ignore: 'the group has no case_id label (group_by: [case_id])' };
    if (!INCIDENT.test(incident)) return { ignore: `case_id ${JSON.stringify(incident.slice(0, 60))} is not an incident id` };
    return { run: { domain: 'alerts', case: incident, model: options.model ?? { adapter: 'rules' } } };
  };
}

export const mapAlertGroup = alertMapping();
