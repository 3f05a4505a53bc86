// The activity side of every example domain; the worker is created with this list.
import { incidentsImplementation } from './incidents/tools.js';
import { paymentsImplementation } from './payments/tools.js';
import { syntheticImplementation } from './synthetic/tools.js';

export const implementations = [paymentsImplementation, incidentsImplementation, syntheticImplementation] as const;
