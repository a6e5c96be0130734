import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';

/** The bundler logs every module it packs; the bench's tables are its only output. */
const quietLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/** Bundles the bare floor's workflow (./bare-workflow) into `dir` and returns the file's path. */
export async function writeBareBundle(dir: string): Promise<string> {
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('./bare-workflow'), logger: quietLogger });
  const path = join(dir, 'bare-bundle.js');
  writeFileSync(path, code);
  return path;
}
