// The alert rules over the world's /metrics (domains/world/metrics.ts): error rate, memory and a
// bad deploy, each labelled with the incident (`case_id`) the mapping reads. The annotations are
// templated from labels and values; they reach a run only as untrusted text.
import type { AlertRule } from '../../monitoring/prometheus.js';

export const worldAlertRules: AlertRule[] = [
  {
    alert: 'ServiceErrorRateHigh',
    expr: 'world_service_error_ratio > 0.1',
    labels: { severity: 'page' },
    annotations: { summary: '{{ $labels.service }} of {{ $labels.case_id }} fails {{ $value }} of its requests' },
  },
  {
    alert: 'ServiceMemoryHigh',
    expr: 'world_service_memory_percent >= 90',
    labels: { severity: 'page' },
    annotations: { summary: '{{ $labels.service }} of {{ $labels.case_id }} uses {{ $value }}% of its memory' },
  },
  {
    alert: 'ServiceBadDeploy',
    expr: 'world_service_error_ratio > 0.1 and on(case_id, service) (time() - world_service_deployed_timestamp_seconds) < 3600',
    labels: { severity: 'page' },
    annotations: { summary: '{{ $labels.service }} of {{ $labels.case_id }} fails since a deploy within the hour' },
  },
];

/** What the rules' alerts are grouped by: one group, and so one run, per incident. */
export const ALERT_GROUP_BY = ['case_id'];

/** The same rules under the name `agent alert-rules --rules domains/alerts/rules.ts` reads. */
export const alertRules = worldAlertRules;
