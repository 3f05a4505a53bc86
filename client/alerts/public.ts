/**
 * `bounded-react-temporal/alerts`: Alertmanager's webhook as runs. `createAlertReceiver` takes
 * Alertmanager's notifications (behind a shared secret, `receiverAuthFromEnv`), maps each alert
 * group to a domain and a case with your `AlertMapping`, and starts one run per group and
 * episode through an `AgentClient`; `agent alerts --mapping FILE` runs it as a process of its own
 * (a `.js` or `.ts` module exporting `mapAlertGroup`). Your alert rules, written as `AlertRule`s
 * beside the domain, become Prometheus' rule file with `prometheusRuleFile` (or
 * `agent alerts rules --rules FILE`), so the rules and the domain they start runs of stay one source.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { AgentClient } from 'bounded-react-temporal/client';
 * import { createAlertReceiver, receiverAuthFromEnv, type AlertMapping } from 'bounded-react-temporal/alerts';
 *
 * const mapAlertGroup: AlertMapping = (group) => {
 *   const incident = group.groupLabels.case_id;
 *   return incident ? { run: { domain: 'alerts', case: incident, model: { adapter: 'rules' } } } : { ignore: 'no case_id label' };
 * };
 * const auth = receiverAuthFromEnv(process.env);
 * if (typeof auth === 'string') throw new Error(auth);
 * const agent = await AgentClient.connect({ domains: [] });
 * const receiver = createAlertReceiver({ agent, auth, map: mapAlertGroup });
 * createServer((req, res) => receiver.handle(req, res)).listen(9095, '127.0.0.1');
 * ```
 *
 * @module
 */
export { createAlertReceiver, type AlertMapping, type AlertReceiver, type AlertReceiverOptions, type AlertRunStarter, type AlertGroup } from './receiver.js';
export { receiverAuthFromEnv, type ReceiverAuth } from './auth.js';
export { prometheusRuleFile, type AlertRule } from './rules.js';
