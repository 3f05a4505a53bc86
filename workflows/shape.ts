// Execution shapes: who decides a run's steps. One engine, one gate: a shape only changes who
// proposes the next step (the domain's route, the model's plan or the model), never how a
// proposal is judged. Runs recorded before shapes existed have none and run as `react`.
import { z } from 'zod';
import { workerScoped } from './worker-scoped.js';

export const SHAPES = ['workflow', 'hybrid', 'react', 'plan'] as const;

/**
 * `workflow`: the domain's route decides every step; where it cannot, the run escalates.
 * `hybrid`: the route decides what it knows; the model is asked only where the route is open.
 * `react`: the model decides every step (the default, and every run recorded before shapes).
 * `plan`: a planner shown trusted input only writes the whole plan (controller/plan.ts); a model with no
 * tools fills the slots only untrusted text holds, and a step that comes back re-plans on codes only.
 */
export const Shape = workerScoped('shape.Shape', () => z.enum(SHAPES));
export type Shape = z.infer<typeof Shape>;

/** Who took a decision: the run's model, the domain's route, or the model's earlier plan. */
export type DecidedBy = 'model' | 'route' | 'plan';
