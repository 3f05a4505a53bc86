// Every domain the engine knows, by name. Workflow-safe.
import type { Domain } from '../workflows/public.js';
import { incidents } from './incidents/domain.js';
import { payments } from './payments/domain.js';
import { synthetic } from './synthetic/domain.js';

export const domains: Record<string, Domain> = { payments, incidents, synthetic };

export function findDomain(name: string): Domain | undefined {
  return Object.hasOwn(domains, name) ? domains[name] : undefined;
}
