import { CACHED_WORKFLOW_MIB, WORKER_BASE_MIB, workerCapacity } from './worker';

describe('workerCapacity', () => {
  it('caches what the memory holds past the base, at the measured cost per workflow', () => {
    const capacity = workerCapacity(500);
    expect(capacity.maxCachedWorkflows).toBe(Math.floor((500 - WORKER_BASE_MIB) / CACHED_WORKFLOW_MIB));
    expect(capacity.maxCachedWorkflows).toBe(120);
    expect(capacity.maxConcurrentWorkflowTaskExecutions).toBe(30);
    expect(capacity.reuseV8Context).toBe(true);
  });

  it('keeps a floor for tiny budgets and a ceiling for large ones', () => {
    expect(workerCapacity(100)).toMatchObject({ maxCachedWorkflows: 20, maxConcurrentWorkflowTaskExecutions: 5 });
    expect(workerCapacity(64_000)).toMatchObject({ maxCachedWorkflows: 2_000, maxConcurrentWorkflowTaskExecutions: 40 });
  });
});
