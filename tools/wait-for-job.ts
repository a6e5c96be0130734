import { z } from './lazy-zod';
import { defineTool } from './tool';

export const waitForJobTool = defineTool({
  name: 'wait_for_job',
  description:
    'Wait, without spending model turns, until a background child run ends or a detached sandbox job writes its exit ' +
    "file; returns its result or the log tail. The wait ends early if the run's budget does.",
  input: () =>
    z
      .object({
        jobId: z.string().min(1).optional().describe('The job id a background task call returned.'),
        exitFile: z.string().min(1).optional().describe('Sandbox path the detached command writes its exit code to, e.g. /tmp/job.exit.'),
        logFile: z
          .string()
          .min(1)
          .optional()
          .describe("Sandbox path of the detached command's log, whose tail is returned, e.g. /tmp/job.log."),
        pollSeconds: z.number().int().min(10).max(900).optional().describe('Seconds between checks (default 60).'),
      })
      .strict()
      .refine((input) => input.jobId !== undefined || input.exitFile !== undefined, {
        message: 'name a jobId or an exitFile to wait for',
      }),
  sideEffect: 'read',
  publishes: false,
  concurrencySafe: true,
  executor: 'workflow',
});
