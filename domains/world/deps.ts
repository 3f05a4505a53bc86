// What the example domains' implementations need from the worker: a client of the simulated
// systems of record. A team's own domain names its own dependencies the same way.
import type { WorldClient } from './client.js';

export interface WorldDeps {
  world: WorldClient;
}
