import { randomUUID } from 'node:crypto';
import { DefaultLogger, Runtime, type Worker } from '@temporalio/worker';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { temporal } from '@temporalio/proto';
import { type DataConverter } from '@temporalio/common';
import { createSwitchboardWorker } from '../../infra/worker';
import { SEARCH_ATTRIBUTE_KEYS } from '../../workflows/search-attributes';

/** The address of the run's shared dev server (started by test/global-setup.ts). */
export function testTemporalAddress(): string {
  const address = process.env.SWITCHBOARD_TEST_TEMPORAL_ADDRESS;
  if (!address)
    throw new Error('SWITCHBOARD_TEST_TEMPORAL_ADDRESS is unset: run the suite through jest (its global setup starts Temporal)');
  return address;
}

let runtimeInstalled = false;

/** Keeps the SDK's own logs to warnings, so test output stays readable. */
export function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // Already installed in this worker process by an earlier test file.
  }
}

/** A test environment on the shared dev server (no time skipping). */
export async function sharedEnvironment(): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  return TestWorkflowEnvironment.createFromExistingServer({ address: testTemporalAddress(), namespace: 'default' });
}

/**
 * A time-skipping environment on the provisioned test server, never the SDK's download.
 * Tests using it run serially within their file.
 */
export async function timeSkippingEnvironment(): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  const path = process.env.TEMPORAL_TEST_SERVER_PATH;
  if (!path) throw new Error('TEMPORAL_TEST_SERVER_PATH is unset: run the suite through jest');
  const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path } } });
  // The test server knows no custom search attributes until told; product workflows upsert ours.
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries(
      SEARCH_ATTRIBUTE_KEYS.map((key) => [
        key.name,
        key.type === 'INT'
          ? temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_INT
          : temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
      ]),
    ),
  });
  return env;
}

/** A task queue no other test file uses. */
export function uniqueTaskQueue(label: string): string {
  return `test-${label}-${randomUUID().slice(0, 8)}`;
}

/** A worker on the prebuilt product bundle, for an environment and its own task queue. */
export async function productWorker(
  env: TestWorkflowEnvironment,
  taskQueue: string,
  activities: object,
  dataConverter?: DataConverter,
): Promise<Worker> {
  return createSwitchboardWorker({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    activities,
    ...(dataConverter ? { dataConverter } : {}),
  });
}
