// A service's health as Prometheus scrapes it: `GET /metrics` in the text exposition format, one
// series per case and service, under a prefix of the exporter's choosing. The simulated world
// exports its services with it (`world_service_*`) and so does the Kubernetes exporter
// (`incident_service_*`, domains/incidents/kubernetes-metrics.ts), and one set of alert rules
// (domains/alerts/rules.ts) is written over either prefix. Only numbers and label values the
// exporter itself chose (case ids, service names, versions) are exported; no log text reaches a label.

/** One service of one case, as an exporter sees it. */
export interface ServiceSample {
  caseId: string;
  service: string;
  errorRatio: number;
  memoryPercent: number;
  latencyP99Ms: number;
  healthy: boolean;
  version: string;
  previousVersion: string;
  /** When the current version was deployed (ISO 8601). */
  deployedAt: string;
}

interface Family {
  suffix: string;
  help: string;
  sample(s: ServiceSample): { labels?: Record<string, string>; value: number };
}

const FAMILIES: Family[] = [
  { suffix: 'error_ratio', help: 'Share of requests that failed.', sample: (s) => ({ value: s.errorRatio }) },
  { suffix: 'memory_percent', help: 'Memory in use, percent of the limit.', sample: (s) => ({ value: s.memoryPercent }) },
  { suffix: 'latency_p99_seconds', help: 'p99 request latency.', sample: (s) => ({ value: s.latencyP99Ms / 1000 }) },
  { suffix: 'up', help: '1 when the service is healthy.', sample: (s) => ({ value: s.healthy ? 1 : 0 }) },
  {
    suffix: 'deploy_info',
    help: 'The deployed version (always 1).',
    sample: (s) => ({ labels: { version: s.version, previous: s.previousVersion }, value: 1 }),
  },
  { suffix: 'deployed_timestamp_seconds', help: 'When the current version was deployed.', sample: (s) => ({ value: Date.parse(s.deployedAt) / 1000 }) },
];

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** The exposition text of `services` under `prefix` (e.g. `world_service`). */
export function renderServiceMetrics(prefix: string, services: readonly ServiceSample[]): string {
  const lines: string[] = [];
  for (const family of FAMILIES) {
    const name = `${prefix}_${family.suffix}`;
    lines.push(`# HELP ${name} ${family.help}`, `# TYPE ${name} gauge`);
    for (const s of services) {
      const { labels, value } = family.sample(s);
      lines.push(`${name}{${labelText({ case_id: s.caseId, service: s.service, ...labels })}} ${Number.isFinite(value) ? value : 'NaN'}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function labelText(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')}"`)
    .join(',');
}
