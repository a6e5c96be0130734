import { main } from './main';

/**
 * A worker-only process (`switchboard worker`, or `node dist/infra/worker-main.js`): for
 * scaling out, and for the fault tests that SIGKILL a worker mid-run. It only connects to a
 * Temporal (configured, or one already on the embedded port) and prints
 * `SWITCHBOARD_WORKER_READY` once it polls. `SWITCHBOARD_WORKFLOW_BUNDLE` overrides the bundle
 * path (tests).
 */
export function workerMain(): Promise<void> {
  return main({ worker: true, server: false, embedded: false });
}

if (require.main === module) void workerMain();
