// Activities heartbeat while they wait on the world or a model, so that when a worker dies
// Temporal notices within seconds (the heartbeat timeout) instead of after the whole
// start-to-close timeout, and the run moves on: an effect to its readback, a read to a retry.
import { HEARTBEAT_EVERY_MS } from '../workflows/policy.js';
import { Context } from '@temporalio/activity';

export { HEARTBEAT_EVERY_MS };

export async function withHeartbeat<T>(work: () => Promise<T>): Promise<T> {
  const context = Context.current();
  // No heartbeat up front: a call that finishes within a second (most do) costs no extra round
  // trip, and the first beat still lands well inside the heartbeat timeout.
  const timer = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
