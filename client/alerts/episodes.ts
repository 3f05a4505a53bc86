// When an alert group that already had a run is a new incident episode. The group key alone
// names the group for ever, so a recurrence a week after its run closed would attach to that
// closed run and start nothing. A group therefore has episodes (webhook.ts puts the number in the
// case id), and the receiver's rule is: while a run of the group is open, every notification is
// that run's (a new alert joining the group included: never two runs on one incident at once);
// once it has closed, a notification is a new episode only if one of its firing alerts began
// after the run closed. A late re-send of the closed episode (repeat_interval, an HA peer) carries
// alerts that began before, and attaches. The comparison is of Prometheus' clock (`startsAt`) with
// Temporal's (`closeTime`): machines a few seconds apart could only mistake a recurrence within
// those seconds of the close.
import { createHash } from 'node:crypto';
import type { AlertGroup } from './webhook.js';

/**
 * Each firing alert of the notification as an instance: which alert (Alertmanager's fingerprint,
 * else its labels) and since when. The same instance comes again in every re-send of the group.
 */
export function firingInstances(group: Pick<AlertGroup, 'alerts'>): string[] {
  return group.alerts.filter((a) => a.status === 'firing').map((a) => `${a.fingerprint ?? labelsHash(a.labels)}@${a.startsAt}`);
}

/** Whether a firing alert of the notification began after `closedAt` (ISO): news for a closed run. */
export function recurredAfter(group: Pick<AlertGroup, 'alerts'>, closedAt: string): boolean {
  const closed = Date.parse(closedAt);
  if (!Number.isFinite(closed)) return false;
  // An unreadable startsAt is no evidence of a recurrence: the notification attaches.
  return group.alerts.some((a) => a.status === 'firing' && Date.parse(a.startsAt) > closed);
}

function labelsHash(labels: Record<string, string>): string {
  const sorted = Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex').slice(0, 16);
}
