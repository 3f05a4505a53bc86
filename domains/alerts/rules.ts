// The alert rules over the incidents' service metrics (monitoring/service-metrics.ts): error rate,
// memory and a bad deploy, each labelled with the incident (`case_id`) the mapping reads. One set
// of rules, written over an exporter's prefix: the simulated world's `world_service_*`
// (domains/world/metrics.ts) or the Kubernetes exporter's `incident_service_*`
// (domains/incidents/kubernetes-metrics.ts). The annotations are templated from labels and
// values; they reach a run only as untrusted text.
import type { AlertRule } from '../../monitoring/prometheus.js';

/** The three rules over the series `<prefix>_error_ratio`, `<prefix>_memory_percent`, `<prefix>_deployed_timestamp_seconds`. */
export function serviceAlertRules(prefix: string): AlertRule[] {
  return [
    {
      alert: 'ServiceErrorRateHigh',
      expr: `${prefix}_error_ratio > 0.1`,
      labels: { severity: 'page' },
      annotations: { summary: '{{ $labels.service }} of {{ $labels.case_id }} fails {{ $value }} of its requests' },
    },
    {
      alert: 'ServiceMemoryHigh',
      expr: `${prefix}_memory_percent >= 90`,
      labels: { severity: 'page' },
      annotations: { summary: '{{ $labels.service }} of {{ $labels.case_id }} uses {{ $value }}% of its memory' },
    },
    {
      alert: 'ServiceBadDeploy',
      expr: `${prefix}_error_ratio > 0.1 and on(case_id, service) (time() - ${prefix}_deployed_timestamp_seconds) < 3600`,
      labels: { severity: 'page' },
      annotations: { summary: '{{ $labels.service }} of {{ $labels.case_id }} fails since a deploy within the hour' },
    },
  ];
}

/** The rules over the simulated world's /metrics. */
export const worldAlertRules: AlertRule[] = serviceAlertRules('world_service');

/** What the rules' alerts are grouped by: one group, and so one run, per incident. */
export const ALERT_GROUP_BY = ['case_id'];

/** The same rules under the name `agent alert-rules --rules domains/alerts/rules.ts` reads. */
export const alertRules = worldAlertRules;
