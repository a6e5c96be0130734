import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { buildWorkflowBundle } from '../infra/build-bundle';
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
  const bundle = workflowBundlePath();
  const root = projectRoot();
  // Workflow code imports the pure agents/ and tools/ layers, so they count too.
  const files = ['workflows', 'agents', 'tools'].flatMap((dir) => (existsSync(join(root, dir)) ? readdirRecursive(join(root, dir)) : []));
  const built = existsSync(bundle) ? statSync(bundle).mtimeMs : 0;
  const newest = Math.max(0, ...files.map((file) => statSync(file).mtimeMs));
  if (built >= newest) return;
  await buildWorkflowBundle(join(root, 'workflows', 'index.ts'), bundle);
}

function readdirRecursive(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return readdirRecursive(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}
