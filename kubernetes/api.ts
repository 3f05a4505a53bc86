// A small typed client for the Kubernetes API over node:https, so the project needs no
// Kubernetes client package: a bearer token, the API server's own CA, JSON in and out, and
// the three patch types. An answer other than 2xx is a KubernetesApiError carrying the status
// code and the API's reason (`Conflict`, `NotFound`, ...), which is what a caller decides on; a
// request that got no answer at all is a KubernetesUnreachableError.
import { Agent, request } from 'node:https';

/** What it takes to talk to one API server: its URL, a bearer token, and the CA its cert chains to. */
export interface KubernetesAccess {
  server: string;
  token: string;
  /** PEM: the certificate (or bundle) the server's serving cert is checked against. */
  ca: string;
}

export type PatchKind = 'strategic' | 'merge' | 'json';

const PATCH_CONTENT_TYPES: Record<PatchKind, string> = {
  strategic: 'application/strategic-merge-patch+json',
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
};

export class KubernetesApiError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    /** The HTTP status: 404, 409, 422, ... */
    readonly status: number,
    /** The Status object's reason (`NotFound`, `Conflict`, `Invalid`, ...), or '' when the body had none. */
    readonly reason: string,
    detail: string,
  ) {
    super(`${method} ${path} answered ${status}${reason ? ` ${reason}` : ''}: ${detail}`);
    this.name = 'KubernetesApiError';
  }
}

export class KubernetesUnreachableError extends Error {
  constructor(method: string, url: string, cause: unknown) {
    super(`${method} ${url} got no answer: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'KubernetesUnreachableError';
  }
}

/** A request that gets no answer in a minute is given up (a loaded host is slower, not this slow). */
const REQUEST_TIMEOUT_MS = 60_000;

export class KubernetesApi {
  private readonly agent: Agent;

  constructor(private readonly access: KubernetesAccess) {
    this.agent = new Agent({ ca: access.ca, keepAlive: true });
  }

  get<T>(path: string): Promise<T> {
    return this.send<T>('GET', path);
  }

  /** A GET whose answer is text, not JSON: /readyz, /healthz, /livez. */
  getText(path: string): Promise<string> {
    return this.send<string>('GET', path, undefined, undefined, 'text');
  }

  /** POST: creates the object in `body` under the collection at `path`. */
  create<T>(path: string, body: unknown): Promise<T> {
    return this.send<T>('POST', path, body, 'application/json');
  }

  /** PUT: replaces the object; a stale `metadata.resourceVersion` answers 409 Conflict. */
  replace<T>(path: string, body: unknown): Promise<T> {
    return this.send<T>('PUT', path, body, 'application/json');
  }

  patch<T>(path: string, body: unknown, kind: PatchKind = 'strategic'): Promise<T> {
    return this.send<T>('PATCH', path, body, PATCH_CONTENT_TYPES[kind]);
  }

  delete<T = unknown>(path: string): Promise<T> {
    return this.send<T>('DELETE', path);
  }

  /** Closes the kept-alive connections; the client is not used afterwards. */
  close(): void {
    this.agent.destroy();
  }

  private send<T>(method: string, path: string, body?: unknown, contentType?: string, as: 'json' | 'text' = 'json'): Promise<T> {
    const url = new URL(path, this.access.server);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = { authorization: `Bearer ${this.access.token}`, accept: as === 'json' ? 'application/json' : '*/*' };
    if (payload && contentType) {
      headers['content-type'] = contentType;
      headers['content-length'] = String(payload.length);
    }
    return new Promise<T>((resolve, reject) => {
      const req = request(url, { method, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (err) => reject(new KubernetesUnreachableError(method, url.href, err)));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) {
            if (as === 'text') return resolve(text as T);
            try {
              resolve((text ? JSON.parse(text) : undefined) as T);
            } catch (err) {
              reject(new KubernetesApiError(method, path, status, '', `an answer that is not JSON (${String(err)}): ${text.slice(0, 200)}`));
            }
            return;
          }
          const { reason, message } = statusOf(text);
          reject(new KubernetesApiError(method, path, status, reason, message));
        });
      });
      req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`no answer in ${REQUEST_TIMEOUT_MS / 1000} s`)));
      req.on('error', (err) => reject(new KubernetesUnreachableError(method, url.href, err)));
      req.end(payload);
    });
  }
}

/** The reason and message of a Kubernetes Status body; the raw text when it is not one. */
function statusOf(text: string): { reason: string; message: string } {
  try {
    const parsed = JSON.parse(text) as { kind?: string; reason?: string; message?: string };
    if (parsed.kind === 'Status') return { reason: parsed.reason ?? '', message: parsed.message ?? text };
  } catch {
    // not JSON: a proxy's page, a plain-text error
  }
  return { reason: '', message: text.slice(0, 500) };
}
