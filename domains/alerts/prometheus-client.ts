// PromQL instant queries against a real Prometheus, for the `query_prometheus` read. Every way a
// query can fail is told apart, because none of them may read as "healthy": bad PromQL is a
// definite refusal (ToolRefused: asking again unchanged will not help), an unreachable or failing
// server is unavailable (ToolUnavailable), and an empty result is an answer that says "no series"
// (the tool's output, with no value). Each sample carries its own time: the scrape's, read with
// `timestamp()`, so a series that stopped being scraped is old evidence, not a fresh reading.
import { z } from 'zod';
import { ToolRefused, ToolUnavailable } from '../../worker/public.js';

const Sample = z.tuple([z.number(), z.string()]);
const ApiAnswer = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('success'),
    data: z.discriminatedUnion('resultType', [
      z.object({ resultType: z.literal('vector'), result: z.array(z.object({ metric: z.record(z.string(), z.string()), value: Sample })) }),
      z.object({ resultType: z.literal('scalar'), result: Sample }),
      z.object({ resultType: z.literal('string'), result: Sample }),
      z.object({ resultType: z.literal('matrix'), result: z.array(z.unknown()) }),
    ]),
  }),
  z.object({ status: z.literal('error'), errorType: z.string(), error: z.string() }),
]);

export interface PromSample {
  labels: Record<string, string>;
  /** Null for NaN or an infinity, which JSON and facts cannot carry. */
  value: number | null;
  /** When the sample was taken (ISO): the scrape's time for a series, the evaluation's for a computed value. */
  at: string;
}

export interface PromAnswer {
  server: string;
  query: string;
  resultType: 'vector' | 'scalar';
  samples: PromSample[];
}

export async function promQuery(server: string, query: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<PromAnswer> {
  const answer = await instant(server, query, options);
  if (answer.resultType === 'scalar') return { server, query, resultType: 'scalar', samples: [sampleOf({}, answer.result)] };
  if (answer.resultType !== 'vector')
    throw new ToolRefused(`the query gives a ${answer.resultType}; ask for an instant vector or a scalar`, 'unsupported_result');
  const samples = answer.result.map((r) => sampleOf(r.metric, r.value));
  if (samples.length === 0) return { server, query, resultType: 'vector', samples };
  // The value's own time: timestamp() of the same expression gives each series' scrape time.
  const times = await instant(server, `timestamp(${query})`, options).catch(() => undefined);
  if (times?.resultType === 'vector') {
    const byLabels = new Map(times.result.map((r) => [labelKey(r.metric), Number(r.value[1])]));
    for (const s of samples) {
      const at = byLabels.get(labelKey(s.labels));
      if (at !== undefined && Number.isFinite(at)) s.at = new Date(at * 1000).toISOString();
    }
  }
  return { server, query, resultType: 'vector', samples };
}

type Answered = Extract<z.infer<typeof ApiAnswer>, { status: 'success' }>['data'];

async function instant(server: string, query: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<Answered> {
  const url = new URL('/api/v1/query', server);
  let res: Response;
  try {
    const signals = [AbortSignal.timeout(options.timeoutMs), ...(options.signal ? [options.signal] : [])];
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ query }).toString(),
      signal: AbortSignal.any(signals),
    });
  } catch (err) {
    const timedOut = err instanceof Error && err.name === 'TimeoutError';
    throw new ToolUnavailable(`Prometheus at ${server} ${timedOut ? 'did not answer in time' : 'is unreachable'}`, timedOut);
  }
  const text = await res.text();
  let parsed: z.infer<typeof ApiAnswer>;
  try {
    parsed = ApiAnswer.parse(JSON.parse(text));
  } catch {
    if (res.status >= 500 || res.status === 429) throw new ToolUnavailable(`Prometheus at ${server} answered ${res.status}`);
    throw new ToolRefused(`Prometheus at ${server} answered ${res.status} with a body that is not its API's`, 'bad_answer');
  }
  if (parsed.status === 'error') {
    // bad_data is the query itself; anything else is the server's trouble (timeout, canceled, execution).
    if (parsed.errorType === 'bad_data') throw new ToolRefused(`bad PromQL: ${parsed.error.slice(0, 160)}`, 'bad_promql');
    throw new ToolUnavailable(`Prometheus could not run the query (${parsed.errorType}): ${parsed.error.slice(0, 120)}`, parsed.errorType === 'timeout');
  }
  return parsed.data;
}

function sampleOf(labels: Record<string, string>, [time, value]: [number, string]): PromSample {
  const n = Number(value);
  return { labels, value: Number.isFinite(n) ? n : null, at: new Date(time * 1000).toISOString() };
}

function labelKey(labels: Record<string, string>): string {
  return JSON.stringify(
    Object.entries(labels)
      .filter(([k]) => k !== '__name__')
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}
