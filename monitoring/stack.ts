// Prometheus and Alertmanager together, the way the alert loop's tests and demo need them:
// provisioned (installed when missing and allowed), each with its own data directory under one
// temporary directory, Alertmanager first so Prometheus can send to it, both stopped by their pids.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAlertmanager, type AlertmanagerOptions } from './alertmanager.js';
import { startPrometheus, type AlertRule, type PrometheusOptions } from './prometheus.js';
import { missingMonitoringLine, provisionMonitoring, type MonitoringProvisionOptions } from './provision.js';

export interface AlertStackOptions {
  /** host:port of each /metrics target. */
  targets: string[];
  rules: AlertRule[];
  webhook: AlertmanagerOptions['webhook'];
  groupBy: string[];
  alertmanager?: Pick<AlertmanagerOptions, 'groupWait' | 'groupInterval' | 'repeatInterval'>;
  prometheus?: Pick<PrometheusOptions, 'scrapeInterval' | 'evaluationInterval' | 'resendDelay'>;
  provision?: MonitoringProvisionOptions;
}

export interface AlertStack {
  prometheus: { url: string; pid: number };
  alertmanager: { url: string; pid: number };
  stop(): Promise<void>;
}

export async function startAlertStack(options: AlertStackOptions): Promise<AlertStack> {
  const binaries = provisionMonitoring(options.provision);
  if (binaries.kind === 'missing') throw new Error(missingMonitoringLine(binaries));
  const dir = mkdtempSync(join(tmpdir(), 'alert-stack-'));
  const alertmanager = await startAlertmanager({
    binary: binaries.alertmanager,
    dir: join(dir, 'alertmanager'),
    webhook: options.webhook,
    groupBy: options.groupBy,
    ...options.alertmanager,
  }).catch((err: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  });
  const prometheus = await startPrometheus({
    binary: binaries.prometheus,
    dir: join(dir, 'prometheus'),
    targets: options.targets,
    rules: options.rules,
    alertmanagerUrl: alertmanager.url,
    ...options.prometheus,
  }).catch(async (err: unknown) => {
    await alertmanager.stop();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  });
  return {
    prometheus: { url: prometheus.url, pid: prometheus.pid },
    alertmanager: { url: alertmanager.url, pid: alertmanager.pid },
    async stop() {
      await Promise.all([prometheus.stop(), alertmanager.stop()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
