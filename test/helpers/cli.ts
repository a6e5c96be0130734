import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../../infra/paths';
import { testTemporalAddress } from './temporal';

const run = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `bin/switchboard.js` as a person would, against the suite's Temporal and a kit's task
 * queue, from the kit's folder, with a bare environment (plus `extra`). A non-zero exit is
 * returned, not thrown.
 */
export async function runCli(
  kit: { dir: string; taskQueue: string },
  args: string[],
  extra: Record<string, string> = {},
): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [join(projectRoot(), 'bin', 'switchboard.js'), ...args], {
      cwd: kit.dir,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/tmp',
        TEMPORAL_ADDRESS: testTemporalAddress(),
        SWITCHBOARD_TASK_QUEUE: kit.taskQueue,
        LOG_LEVEL: 'warn',
        ...extra,
      },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as CliResult;
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}
