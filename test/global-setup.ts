import { join } from 'node:path';
import { buildWorkflowBundle, bundleIsCurrent } from '../infra/build-bundle';
import { startDevServer, type DevServer } from '../infra/dev-server';
import { projectRoot, workflowBundlePath } from '../infra/paths';
import { resolveTemporalBinary } from '../infra/temporal-binaries';
import { freePort } from './helpers/ports';

/**
 * Starts ONE Temporal dev server for the whole test run (with our own readiness wait, not
 * the SDK's 5 s) and makes sure the prebuilt workflow bundle is current. Test files reach
 * the server through SWITCHBOARD_TEST_TEMPORAL_ADDRESS.
 */
export default async function globalSetup(): Promise<void> {
  await ensureBundle();
  const binary = resolveTemporalBinary('cli');
  const port = await freePort();
  const server = await startDevServer({ binary: binary.path, port, ui: false, readyTimeoutMs: 90_000 });
  (globalThis as { __switchboardTemporal?: DevServer }).__switchboardTemporal = server;
  process.env.SWITCHBOARD_TEST_TEMPORAL_ADDRESS = server.address;
  process.env.TEMPORAL_TEST_SERVER_PATH ??= resolveTemporalBinary('test-server').path;
}

/** Rebuilds dist/workflow-bundle.js from the TypeScript sources when any of them is newer. */
async function ensureBundle(): Promise<void> {
  if (bundleIsCurrent()) return;
  await buildWorkflowBundle(join(projectRoot(), 'workflows', 'index.ts'), workflowBundlePath());
}
