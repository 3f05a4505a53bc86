// A Prometheus of our own on loopback: scrapes the given targets, evaluates the given alert rules
// and sends what fires to the given Alertmanager. Config and rules are written as JSON, which is
// YAML, into its own data directory; intervals are short by default because the tests and the
// demo want an alert within seconds, and a caller raises them for anything longer-lived.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prometheusRuleFile, type AlertRule } from '../client/alerts/rules.js';
import { supervise, type Supervised } from './supervise.js';

export type { AlertRule } from '../client/alerts/rules.js';

export interface PrometheusOptions {
  binary: string;
  /** Its own data directory (config, rules and TSDB go here). */
  dir: string;
  /** host:port of each target to scrape at /metrics. */
  targets: string[];
  rules: AlertRule[];
  /** The Alertmanager's base URL, if alerts should go anywhere. */
  alertmanagerUrl?: string;
  scrapeInterval?: string;
  evaluationInterval?: string;
  /** How soon a still-firing alert is sent again (Prometheus' default is a minute). */
  resendDelay?: string;
}

export function prometheusConfig(options: Pick<PrometheusOptions, 'targets' | 'alertmanagerUrl' | 'scrapeInterval' | 'evaluationInterval'>, rulesFile: string) {
  return {
    global: { scrape_interval: options.scrapeInterval ?? '1s', evaluation_interval: options.evaluationInterval ?? '1s' },
    rule_files: [rulesFile],
    scrape_configs: [{ job_name: 'world', static_configs: [{ targets: options.targets }] }],
    ...(options.alertmanagerUrl ? { alerting: { alertmanagers: [{ static_configs: [{ targets: [new URL(options.alertmanagerUrl).host] }] }] } } : {}),
  };
}

export async function startPrometheus(options: PrometheusOptions): Promise<Supervised> {
  mkdirSync(join(options.dir, 'data'), { recursive: true });
  const rulesPath = join(options.dir, 'rules.yml');
  const configPath = join(options.dir, 'prometheus.yml');
  writeFileSync(rulesPath, JSON.stringify(prometheusRuleFile(options.rules), null, 2));
  writeFileSync(configPath, JSON.stringify(prometheusConfig(options, rulesPath), null, 2));
  return await supervise({
    name: 'prometheus',
    binary: options.binary,
    args: (port) => [
      `--config.file=${configPath}`,
      `--storage.tsdb.path=${join(options.dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      `--rules.alert.resend-delay=${options.resendDelay ?? '2s'}`,
    ],
    readyPath: '/-/ready',
  });
}
