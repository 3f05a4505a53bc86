// The activity side of every domain, by name (the workflow-safe side is domains/index.ts).
import type { DomainImplementation } from './implementation.js';
import { incidentsImplementation } from './incidents/tools.js';
import { paymentsImplementation } from './payments/tools.js';
import { syntheticImplementation } from './synthetic/tools.js';

export const implementations: Record<string, DomainImplementation> = {
  payments: paymentsImplementation,
  incidents: incidentsImplementation,
  synthetic: syntheticImplementation,
};
