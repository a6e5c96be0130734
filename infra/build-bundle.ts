import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowBundlePath } from './paths';

/**
 * Builds the workflow bundle once, at build time, so workers start without webpack.
 * `workflowsPath` may be compiled JS (npm run build) or TypeScript (the test setup).
 */
export async function buildWorkflowBundle(workflowsPath: string, outFile = workflowBundlePath()): Promise<string> {
  const { code } = await bundleWorkflowCode({ workflowsPath, logger: quietLogger });
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, code);
  return outFile;
}

const noop = () => undefined;
const quietLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: console.warn, error: console.error };

if (require.main === module) {
  buildWorkflowBundle(require.resolve('../workflows/index'))
    .then((file) => console.log(`workflow bundle written to ${file}`))
    .catch((error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    });
}
