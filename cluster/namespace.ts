// A fresh cluster has only Temporal's own system namespace. The dev server creates `default`
// and the engine's search attributes from its command line (temporal-dev/dev-server.ts); here
// they are made through the frontend's API, as an operator would on any cluster, and the
// cluster counts as ready only once a workflow can be started, found by those attributes, and
// ended: that exercises frontend, history, matching and visibility together.
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import proto from '@temporalio/proto';
import { allSearchAttributeKeys, domainKey } from '../workflows/search-attributes.js';
import type { Log } from '../temporal-dev/log.js';

const KEYWORD = proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
const NOT_FOUND = 5;
const ALREADY_EXISTS = 6;

export class ClusterNotReadyError extends Error {
  constructor(step: string, cause: unknown) {
    super(`the cluster did not become ready (${step}): ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'ClusterNotReadyError';
  }
}

const code = (err: unknown) => (err && typeof err === 'object' && 'code' in err ? err.code : undefined);

/** Retries `step` until it succeeds: services join their ring and caches refresh on their own time. */
async function eventually<T>(name: string, deadline: number, step: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await step();
    } catch (err) {
      if (Date.now() > deadline) throw new ClusterNotReadyError(name, err);
      await sleep(500);
    }
  }
}

export async function prepareNamespace(address: string, namespace: string, log: Log, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const connection = await eventually('connect to the frontend', deadline, () => Connection.connect({ address, connectTimeout: 2_000 }));
  try {
    const service = connection.workflowService;
    await eventually(`register namespace ${namespace}`, deadline, async () => {
      try {
        await service.describeNamespace({ namespace });
        return;
      } catch (err) {
        if (code(err) !== NOT_FOUND) throw err;
      }
      try {
        await service.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
        log(`registered namespace ${namespace}`);
      } catch (err) {
        if (code(err) !== ALREADY_EXISTS) throw err;
      }
    });
    await eventually('add the search attributes', deadline, async () => {
      const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
      const missing = allSearchAttributeKeys.filter((k) => customAttributes[k.name] === undefined);
      if (missing.length === 0) return;
      await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: Object.fromEntries(missing.map((k) => [k.name, KEYWORD])) });
      log(`added search attributes ${missing.map((k) => k.name).join(', ')}`);
      throw new Error('added; checking they are listed');
    });
    await eventually('start, find and end a probe workflow', deadline, () => probe(connection, namespace));
  } finally {
    await connection.close();
  }
}

/**
 * A workflow no worker will run: started (frontend, history, matching), listed (visibility),
 * then terminated and deleted so no engine listing ever shows it. A query on an engine search
 * attribute must also be accepted: the frontend knows the attributes only once its cache has them.
 */
async function probe(connection: Connection, namespace: string): Promise<void> {
  const service = connection.workflowService;
  const workflowId = `cluster-ready-probe-${process.pid}-${Date.now()}`;
  await service.listWorkflowExecutions({ namespace, query: `${domainKey.name} = 'cluster-ready-probe'`, pageSize: 1 });
  await service.startWorkflowExecution({
    namespace,
    workflowId,
    requestId: workflowId,
    workflowType: { name: 'clusterReadyProbe' },
    taskQueue: { name: 'cluster-ready-probe' },
  });
  try {
    for (let i = 0; ; i++) {
      const { executions } = await service.listWorkflowExecutions({ namespace, query: `WorkflowId = '${workflowId}'`, pageSize: 1 });
      if (executions.length > 0) return;
      if (i >= 40) throw new Error('visibility did not list the probe within 20 s');
      await sleep(500);
    }
  } finally {
    await service.terminateWorkflowExecution({ namespace, workflowExecution: { workflowId }, reason: 'cluster readiness probe' }).catch(() => undefined);
    await service.deleteWorkflowExecution({ namespace, workflowExecution: { workflowId } }).catch(() => undefined);
  }
}
