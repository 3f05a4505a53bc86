// The world's HTTP server: finds the route, reads the body, and carries out
// what the fault pipeline decided (reply, hang, or drop the connection).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { controlRoutes } from './control.js';
import { HoldRegistry, runDomainRequest, type Action } from './faults.js';
import { HttpError, matchPath, readJsonBody, runHandler, send, type DomainRoute, type Route } from './http.js';
import { incidentRoutes } from './incidents.js';
import { METRICS_CONTENT_TYPE, renderMetrics } from './metrics.js';
import { paymentRoutes } from './payments.js';
import { WorldStore } from './store.js';

export interface WorldServer {
  listen(port: number): Promise<number>;
  close(): Promise<void>;
}

export function createWorldServer(options: { dbPath: string }): WorldServer {
  const store = new WorldStore(options.dbPath);
  const holds = new HoldRegistry();
  const shutdown = new AbortController();
  const routes: Array<Route | DomainRoute> = [...paymentRoutes(store), ...incidentRoutes(store), ...controlRoutes(store, holds)];
  const inflight = new Set<Promise<void>>();
  let closing: Promise<void> | undefined;

  const server = createServer((req, res) => {
    const work: Promise<void> = handle(req, res)
      .catch((err: unknown) => {
        console.error('world: request failed', err);
        send(res, { status: 500, body: { error: 'internal_error' } });
      })
      .finally(() => inflight.delete(work));
    inflight.add(work);
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A client that vanished mid-response must not surface as an unhandled error.
    res.on('error', () => {});
    try {
      await dispatch(req, res);
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      send(res, { status: err.status, body: err.body });
    }
  }

  async function dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://world');
    // Prometheus scrapes text, not JSON; the scrape is no domain call, so it is neither logged nor faulted.
    if (req.method === 'GET' && url.pathname === '/metrics') {
      res.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE }).end(renderMetrics(store.listAllServices()));
      return;
    }
    const { route, params } = findRoute(req.method ?? 'GET', url.pathname);
    const body = await readJsonBody(req).catch((err: unknown) => {
      // Unreadable domain requests still count as "received" in the call log.
      if ('op' in route) store.setCallOutcome(store.startCall({ op: route.op, key: null, idempotencyKey: null, params, body: null }), 'rejected');
      throw err;
    });
    const input = { params: { ...Object.fromEntries(url.searchParams), ...params }, body };
    if (!('op' in route))
      return send(
        res,
        runHandler(() => route.handle(input)),
      );
    await perform(await runDomainRequest({ store, holds, shutdown: shutdown.signal }, route, input), req, res);
  }

  function findRoute(method: string, path: string) {
    let pathMatched = false;
    for (const route of routes) {
      const params = matchPath(route.path, path);
      if (!params) continue;
      if (route.method === method) return { route, params };
      pathMatched = true;
    }
    if (pathMatched) throw new HttpError(405, { error: 'method_not_allowed' });
    throw new HttpError(404, { error: 'route_not_found', path });
  }

  async function perform(action: Action, req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (action.kind === 'reply') return send(res, action.reply);
    if (action.kind === 'drop') {
      req.socket.destroy();
      return;
    }
    // Hang: hold the socket open until the client gives up or we shut down
    // (close() destroys every connection, which ends this wait too).
    if (res.destroyed || req.socket.destroyed) return;
    await new Promise<void>((resolve) => res.once('close', resolve));
  }

  return {
    listen(port) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          const address = server.address();
          resolve(typeof address === 'object' && address ? address.port : port);
        });
      });
    },
    close() {
      closing ??= (async () => {
        // Wake everything that is waiting (holds, slow faults) before dropping
        // connections; woken requests see the abort and leave without writing.
        shutdown.abort();
        holds.releaseAll();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await Promise.allSettled([...inflight]);
        store.close();
      })();
      return closing;
    },
  };
}
