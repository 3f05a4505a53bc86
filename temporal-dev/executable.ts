// Whether a file is there and may be run: the question every provisioner here asks of a binary
// it found (the Temporal CLI, Prometheus and Alertmanager, Chromium, etcd) before it trusts it.
import { accessSync, constants } from 'node:fs';

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
