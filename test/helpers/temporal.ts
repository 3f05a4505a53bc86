import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { afterAll, beforeAll, inject } from 'vitest';

export function uniqueTaskQueue(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

export async function connectClient(): Promise<{ client: Client; close: () => Promise<void> }> {
  const connection = await Connection.connect({ address: inject('temporalAddress') });
  const client = new Client({ connection, namespace: inject('temporalNamespace') });
  return { client, close: () => connection.close() };
}

/** A client for every test of the enclosing describe block; call it inside tests only. */
export function useClient(): () => Client {
  let connected: { client: Client; close: () => Promise<void> } | undefined;
  beforeAll(async () => {
    connected = await connectClient();
  });
  afterAll(async () => {
    await connected?.close();
  });
  return () => {
    if (!connected) throw new Error('the client is only there inside the tests of its describe block');
    return connected.client;
  };
}

/** A real in-process Worker on the shared dev server, using the bundle made once in global setup. */
export async function createTestWorker(
  options: Omit<WorkerOptions, 'connection' | 'namespace' | 'workflowBundle' | 'workflowsPath'>,
): Promise<{ worker: Worker; close: () => Promise<void> }> {
  const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  const worker = await Worker.create({
    connection,
    namespace: inject('temporalNamespace'),
    workflowBundle: { codePath: inject('workflowBundlePath') },
    ...options,
  });
  return { worker, close: () => connection.close() };
}
