// The world's incident services as Prometheus scrapes them: `GET /metrics` in the text exposition
// format, one series per case and service, so a real Prometheus can evaluate alert rules on the
// same state the incidents tools read. Only numbers and label values the world itself chose
// (case ids, service names, versions) are exported; no log text reaches a label.
import { SYMPTOMS } from './incidents.js';
import type { ServiceRow } from './store.js';

interface Family {
  name: string;
  help: string;
  sample(s: ServiceRow): { labels?: Record<string, string>; value: number };
}

const FAMILIES: Family[] = [
  { name: 'world_service_error_ratio', help: 'Share of requests that failed.', sample: (s) => ({ value: SYMPTOMS[s.fault ?? 'healthy'].errorRate }) },
  { name: 'world_service_memory_percent', help: 'Memory in use, percent of the limit.', sample: (s) => ({ value: SYMPTOMS[s.fault ?? 'healthy'].memoryPct }) },
  {
    name: 'world_service_latency_p99_seconds',
    help: 'p99 request latency.',
    sample: (s) => ({ value: SYMPTOMS[s.fault ?? 'healthy'].latencyP99Ms / 1000 }),
  },
  { name: 'world_service_up', help: '1 when the service is healthy.', sample: (s) => ({ value: s.fault === null ? 1 : 0 }) },
  {
    name: 'world_service_deploy_info',
    help: 'The deployed version (always 1).',
    sample: (s) => ({ labels: { version: s.currentVersion, previous: s.previousVersion }, value: 1 }),
  },
  {
    name: 'world_service_deployed_timestamp_seconds',
    help: 'When the current version was deployed.',
    sample: (s) => ({ value: Date.parse(s.deployedAt) / 1000 }),
  },
];

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export function renderMetrics(services: ServiceRow[]): string {
  const lines: string[] = [];
  for (const family of FAMILIES) {
    lines.push(`# HELP ${family.name} ${family.help}`, `# TYPE ${family.name} gauge`);
    for (const s of services) {
      const { labels, value } = family.sample(s);
      lines.push(`${family.name}{${labelText({ case_id: s.caseId, service: s.service, ...labels })}} ${value}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function labelText(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')}"`)
    .join(',');
}
