// The world's incident services as Prometheus scrapes them (`world_service_*`), so a real
// Prometheus can evaluate alert rules on the same state the incidents tools read. The format and
// the families are monitoring/service-metrics.ts's; this file says what the world's rows mean.
import { renderServiceMetrics, type ServiceSample } from '../../monitoring/service-metrics.js';
import { SYMPTOMS } from './incidents.js';
import type { ServiceRow } from './tables.js';

export { METRICS_CONTENT_TYPE } from '../../monitoring/service-metrics.js';

/** The metric prefix the world's services are exported under (domains/alerts/rules.ts). */
export const WORLD_METRICS_PREFIX = 'world_service';

export function renderMetrics(services: ServiceRow[]): string {
  return renderServiceMetrics(WORLD_METRICS_PREFIX, services.map(sampleOf));
}

function sampleOf(s: ServiceRow): ServiceSample {
  const symptoms = SYMPTOMS[s.fault ?? 'healthy'];
  return {
    caseId: s.caseId,
    service: s.service,
    errorRatio: symptoms.errorRate,
    memoryPercent: symptoms.memoryPct,
    latencyP99Ms: symptoms.latencyP99Ms,
    healthy: s.fault === null,
    version: s.currentVersion,
    previousVersion: s.previousVersion,
    deployedAt: s.deployedAt,
  };
}
