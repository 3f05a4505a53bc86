import { proxyActivities } from '@temporalio/workflow';
import type { PingActivities } from '../activities/ping.js';

const { ping } = proxyActivities<PingActivities>({ startToCloseTimeout: '10 seconds' });

/** End-to-end connectivity check: a worker is polling and can run activities. */
export async function pingWorkflow(message: string): Promise<string> {
  return await ping(message);
}
