// An Alertmanager of our own on loopback, with one receiver: a webhook that authenticates the way a
// team's Alertmanager would (a bearer token or basic auth in http_config). No gossip port
// (--cluster.listen-address=), since one instance needs no peers. Timings are short by default so
// a test sees a group within seconds and a re-send (repeat_interval) soon after.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { supervise, type Supervised } from './supervise.js';

export type WebhookAuth = { bearer: string } | { basic: { username: string; password: string } };

export interface AlertmanagerOptions {
  binary: string;
  dir: string;
  webhook: { url: string; auth: WebhookAuth; sendResolved?: boolean };
  groupBy: string[];
  groupWait?: string;
  groupInterval?: string;
  repeatInterval?: string;
}

export const RECEIVER = 'agent';

/** The http_config Alertmanager sends the webhook with (docs/alerts.md shows the same). */
export function webhookHttpConfig(auth: WebhookAuth) {
  return 'bearer' in auth
    ? { authorization: { type: 'Bearer', credentials: auth.bearer } }
    : { basic_auth: { username: auth.basic.username, password: auth.basic.password } };
}

export function alertmanagerConfig(options: Omit<AlertmanagerOptions, 'binary' | 'dir'>) {
  return {
    route: {
      receiver: RECEIVER,
      group_by: options.groupBy,
      group_wait: options.groupWait ?? '1s',
      group_interval: options.groupInterval ?? '2s',
      repeat_interval: options.repeatInterval ?? '1h',
    },
    receivers: [
      {
        name: RECEIVER,
        webhook_configs: [
          { url: options.webhook.url, send_resolved: options.webhook.sendResolved ?? true, http_config: webhookHttpConfig(options.webhook.auth) },
        ],
      },
    ],
  };
}

export async function startAlertmanager(options: AlertmanagerOptions): Promise<Supervised> {
  mkdirSync(join(options.dir, 'data'), { recursive: true });
  const configPath = join(options.dir, 'alertmanager.yml');
  writeFileSync(configPath, JSON.stringify(alertmanagerConfig(options), null, 2));
  return await supervise({
    name: 'alertmanager',
    binary: options.binary,
    args: (port) => [
      `--config.file=${configPath}`,
      `--storage.path=${join(options.dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--cluster.listen-address=',
    ],
    readyPath: '/-/ready',
  });
}
