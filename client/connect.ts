// The Temporal connection behind AgentClient.connect (and so the CLI): the same connection
// settings as the worker (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TLS, or a
// TEMPORAL_PROFILE from the envconfig file); an unreachable server is one clear line.
import { Client, Connection } from '@temporalio/client';
import { connectConfig } from '../worker/connection.js';

export interface Connected {
  client: Client;
  address: string;
  namespace: string;
  close(): Promise<void>;
}

export async function connect(): Promise<Connected> {
  const { connectionOptions, namespace } = connectConfig();
  const address = connectionOptions.address ?? 'unknown address';
  let connection: Connection;
  try {
    connection = await Connection.connect(connectionOptions);
  } catch (err) {
    throw new Error(`cannot reach Temporal at ${address}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return { client: new Client({ connection, namespace }), address, namespace, close: () => connection.close() };
}
