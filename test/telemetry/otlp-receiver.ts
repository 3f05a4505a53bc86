// A small OTLP/HTTP trace receiver on loopback: what a collector would be, for tests. It accepts
// `POST /v1/traces` as JSON (the http exporter's default) or protobuf, and keeps every span it
// is sent, flattened to what the tests look at.
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';

export type AttrValue = string | number | boolean | AttrValue[] | undefined;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, AttrValue>;
  events: { name: string; attributes: Record<string, AttrValue> }[];
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** Requests that were refused (wrong path, type or body), for a test to assert there were none. */
  refused: string[];
  close(): Promise<void>;
}

// The generated OTLP protobuf types that ship with the exporter's own transformer.
const protoRoot = createRequire(import.meta.url)('@opentelemetry/otlp-transformer/build/src/generated/root.js') as {
  opentelemetry: {
    proto: { collector: { trace: { v1: { ExportTraceServiceRequest: { decode(b: Uint8Array): unknown; toObject(m: unknown, o: object): unknown } } } } };
  };
};
const ExportRequest = protoRoot.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const refused: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const type = req.headers['content-type'] ?? '';
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        refused.push(`${req.method} ${req.url}`);
        res.writeHead(404).end();
        return;
      }
      try {
        const body = Buffer.concat(chunks);
        const message = type.includes('json')
          ? JSON.parse(body.toString('utf8'))
          : type.includes('protobuf')
            ? ExportRequest.toObject(ExportRequest.decode(body), { longs: String, bytes: String, defaults: false })
            : undefined;
        if (message === undefined) throw new Error(`content type ${type}`);
        spans.push(...flatten(message, !type.includes('json')));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch (err) {
        refused.push(String(err));
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, spans, refused, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

interface KeyValue {
  key: string;
  value?: AnyValue;
}
interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}

function flatten(message: unknown, base64Ids: boolean): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  const id = (v: unknown) => (typeof v !== 'string' ? '' : base64Ids ? Buffer.from(v, 'base64').toString('hex') : v);
  const resourceSpans = (message as { resourceSpans?: { scopeSpans?: { spans?: Record<string, unknown>[] }[] }[] }).resourceSpans ?? [];
  for (const rs of resourceSpans) {
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          traceId: id(s.traceId),
          spanId: id(s.spanId),
          parentSpanId: id(s.parentSpanId),
          name: String(s.name),
          attributes: attrs(s.attributes as KeyValue[] | undefined),
          events: ((s.events as { name: string; attributes?: KeyValue[] }[] | undefined) ?? []).map((e) => ({ name: e.name, attributes: attrs(e.attributes) })),
        });
      }
    }
  }
  return out;
}

function attrs(list: KeyValue[] | undefined): Record<string, AttrValue> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, value(kv.value)]));
}

function value(v: AnyValue | undefined): AttrValue {
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(value);
  return undefined;
}
