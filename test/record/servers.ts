import { TestWorkflowEnvironment } from '@temporalio/testing';
import { startDevServer } from '../../infra/dev-server';
import { resolveTemporalBinary } from '../../infra/temporal-binaries';
import { freePort } from '../helpers/ports';
import { quietRuntime } from '../helpers/temporal';

/**
 * Temporal suggests continue-as-new from this many history events on the short-history
 * server, so the recorder sees every workflow continue-as-new after a round or two instead
 * of after thousands of events (the workflows read `continueAsNewSuggested`).
 */
export const SHORT_HISTORY_EVENTS = 20;

/** A dev server of the recorder's own, with a low continue-as-new suggestion; stopped by `close`. */
export async function shortHistoryEnvironment(): Promise<{ env: TestWorkflowEnvironment; close(): Promise<void> }> {
  quietRuntime();
  const server = await startDevServer({
    binary: resolveTemporalBinary('cli').path,
    port: await freePort(),
    ui: false,
    readyTimeoutMs: 90_000,
    dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': SHORT_HISTORY_EVENTS },
  });
  const env = await TestWorkflowEnvironment.createFromExistingServer({ address: server.address, namespace: 'default' });
  return {
    env,
    async close() {
      await env.teardown();
      await server.stop();
    },
  };
}
