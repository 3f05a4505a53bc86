// Alertmanager's webhook body (version 4), as the receiver accepts it: the data crosses a process
// boundary, so it is parsed, never trusted. Labels and annotations are whatever the alert rule and
// the scraped series made them; they pick a case through the domain's mapping and otherwise reach
// the run only as untrusted text.
import { createHash } from 'node:crypto';
import { z } from 'zod';

const LabelSet = z.record(z.string().max(1_000), z.string().max(10_000));

export const WebhookAlert = z.object({
  status: z.enum(['firing', 'resolved']),
  labels: LabelSet,
  annotations: LabelSet.default({}),
  startsAt: z.string().max(64),
  endsAt: z.string().max(64).optional(),
  generatorURL: z.string().max(4_000).optional(),
  fingerprint: z.string().max(64).optional(),
});
export type WebhookAlert = z.infer<typeof WebhookAlert>;

export const WebhookBody = z.object({
  version: z.literal('4'),
  groupKey: z.string().min(1).max(4_000),
  truncatedAlerts: z.number().int().min(0).optional(),
  status: z.enum(['firing', 'resolved']),
  receiver: z.string().max(1_000),
  groupLabels: LabelSet,
  commonLabels: LabelSet,
  commonAnnotations: LabelSet.default({}),
  externalURL: z.string().max(4_000).optional(),
  alerts: z.array(WebhookAlert).min(1).max(1_000),
});
export type WebhookBody = z.infer<typeof WebhookBody>;

/** What a domain's mapping is shown of a notification: the group, its id, its labels and alerts. */
export interface AlertGroup {
  /** Alertmanager's group key: the same for every re-send of the group and from every HA peer. */
  groupKey: string;
  /** 12 hex characters of the group key's SHA-256: the part of the run's case id that makes it this group's. */
  groupId: string;
  status: 'firing' | 'resolved';
  groupLabels: Record<string, string>;
  commonLabels: Record<string, string>;
  alerts: WebhookAlert[];
}

export function groupIdOf(groupKey: string): string {
  return createHash('sha256').update(groupKey).digest('hex').slice(0, 12);
}

export function alertGroupOf(body: WebhookBody): AlertGroup {
  return {
    groupKey: body.groupKey,
    groupId: groupIdOf(body.groupKey),
    status: body.status,
    groupLabels: body.groupLabels,
    commonLabels: body.commonLabels,
    alerts: body.alerts,
  };
}

/** The most episodes a group's case id can name (episodes.ts: a recurrence after a closed run is the next one). */
export const MAX_EPISODE = 9_999;

/**
 * The run's case id for one episode of a group: the domain's case (from labels), the group's id,
 * and from the second episode on its number. Every notification of an episode gives the same id,
 * so the run's workflow id is the same, and the server's id uniqueness leaves one run however
 * often the group is sent. The first episode has no suffix.
 */
export function alertCaseId(baseCaseId: string, groupId: string, episode = 0): string {
  if (!Number.isInteger(episode) || episode < 0 || episode > MAX_EPISODE) throw new RangeError(`episode ${episode} is not 0..${MAX_EPISODE}`);
  return `${baseCaseId}-ag${groupId}${episode === 0 ? '' : `-e${episode}`}`;
}

/** The domain's case, the group id and the episode back out of an alert run's case id, or undefined if it is not one. */
export function splitAlertCaseId(caseId: string): { base: string; groupId: string; episode: number } | undefined {
  const match = /^(.+)-ag([0-9a-f]{12})(?:-e([1-9][0-9]{0,3}))?$/.exec(caseId);
  return match ? { base: match[1] as string, groupId: match[2] as string, episode: match[3] ? Number(match[3]) : 0 } : undefined;
}

const NOTE_MAX_CHARS = 2_000;

/**
 * The notification as the run reads it: untrusted text in an unsigned note, so no label or
 * annotation (an annotation may carry an injected instruction) is ever a fact or an operator's word.
 */
export function untrustedNoteOf(body: WebhookBody): string {
  const lines = [`Alertmanager notification, status ${body.status}, ${body.alerts.length} alert(s). Untrusted text from alert labels and annotations:`];
  for (const alert of body.alerts) {
    const labels = Object.entries(alert.labels).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
    const annotations = Object.entries(alert.annotations).map(([k, v]) => `${k}: ${v}`);
    lines.push(`- ${alert.status} since ${alert.startsAt} {${labels.join(', ')}}`, ...annotations.map((a) => `  ${a}`));
  }
  const text = lines.join('\n');
  return text.length <= NOTE_MAX_CHARS ? text : `${text.slice(0, NOTE_MAX_CHARS - 20)}\n[... truncated]`;
}
