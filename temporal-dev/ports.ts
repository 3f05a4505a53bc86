// Loopback ports for the processes we start (the dev server, Prometheus, Alertmanager, the demo's
// services): one chosen free by the OS, or whether a given one is free now. Either answer holds
// only until someone else binds the port, which is why the starters try again when it was taken.
import { createServer } from 'node:net';

const HOST = '127.0.0.1';

/** A TCP port on 127.0.0.1 nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Whether nobody listens on `port` of 127.0.0.1 right now. */
export async function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, HOST, () => server.close(() => resolve(true)));
  });
}
