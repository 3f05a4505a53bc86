// The Temporal connection behind AgentClient.connect (and so the CLI): the same connection
// settings as the worker (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TLS, or a
// TEMPORAL_PROFILE from the envconfig file); an unreachable server is one clear line.
// A team's data converter (their payload codec, e.g. encryption) and client plugins go on the
// Client made here, so runs their workers encoded read back the same way.
import { Client, Connection, type ClientPlugin } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { connectConfig } from '../worker/connection.js';
import { AGENT_CODEC_PLUGIN_NAME } from '../worker/codec-plugin.js';
import { dataConverterFromEnv } from '../worker/payload-codec.js';

export interface ConnectOptions {
  /** The data converter your workers use (same payload codecs, same order). */
  dataConverter?: DataConverter;
  /** Client plugins (e.g. the same agentPlugin your workers use, or a tracing plugin). */
  plugins?: ClientPlugin[];
  /** Where the connection settings and AGENT_PAYLOAD_KEYS are read (default: process.env). */
  env?: NodeJS.ProcessEnv;
}

export interface Connected {
  client: Client;
  address: string;
  namespace: string;
  close(): Promise<void>;
}

export async function connect(options: ConnectOptions = {}): Promise<Connected> {
  const env = options.env ?? process.env;
  const { connectionOptions, namespace } = connectConfig(env);
  const address = connectionOptions.address ?? 'unknown address';
  let connection: Connection;
  try {
    connection = await Connection.connect(connectionOptions);
  } catch (err) {
    throw new Error(`cannot reach Temporal at ${address}: ${err instanceof Error ? err.message : String(err)}`);
  }
  // Without a converter of your own, AGENT_PAYLOAD_KEYS (docs/encryption.md) gives the workers'
  // codec, unless the codec plugin among yours already does.
  const codecPlugin = (options.plugins ?? []).some((p) => p.name === AGENT_CODEC_PLUGIN_NAME);
  const dataConverter = options.dataConverter ?? (codecPlugin ? undefined : dataConverterFromEnv(env));
  const client = new Client({
    connection,
    namespace,
    ...(dataConverter ? { dataConverter } : {}),
    ...(options.plugins ? { plugins: options.plugins } : {}),
  });
  return { client, address, namespace, close: () => connection.close() };
}
