import { z } from './lazy-zod';
import { defineTool } from './tool';

/** The per-command ceiling: a command still running after twenty minutes is killed (exit 124). */
export const BASH_TIMEOUT_MAX_MS = 1_200_000;
/** What a command gets when the call names no timeout. */
export const BASH_TIMEOUT_DEFAULT_MS = 120_000;
/** The characters of a command's output the model gets back: a longer output keeps its head and tail. */
export const BASH_OUTPUT_LIMIT = 30_000;

export const bashTool = defineTool({
  name: 'bash',
  description:
    "Run one shell command in the run's sandbox (bash -c, working directory the workspace) and return its exit code and " +
    'its output: stdout and stderr combined in one stream, in the order they were written (redirect one of them, e.g. ' +
    `2>/tmp/err.txt, to read it apart). Past ${String(BASH_OUTPUT_LIMIT).replace(/\B(?=(\d{3})+$)/g, ',')} characters only the head and the tail are returned, the middle marked ` +
    'as omitted, and a long output is also saved in the workspace at the path given. Each call runs under a timeout and ' +
    'its process group is reaped when the command returns; a job longer than the cap must be detached with setsid -f and polled.',
  input: () =>
    z
      .object({
        command: z.string().min(1).describe('The command line, run with bash -c.'),
        timeoutMs: z
          .number()
          .int()
          .min(1_000)
          .max(BASH_TIMEOUT_MAX_MS)
          .optional()
          .describe(
            `Milliseconds before the command is killed (default ${BASH_TIMEOUT_DEFAULT_MS}, at most ${BASH_TIMEOUT_MAX_MS}: twenty minutes).`,
          ),
      })
      .strict(),
  sideEffect: 'write',
  publishes: false,
  concurrencySafe: false,
  executor: 'activity',
});
