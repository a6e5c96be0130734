import { z } from './lazy-zod';
import { defineTool } from './tool';

export const updateStatusTool = defineTool({
  name: 'update_status',
  description:
    "Update the run's status card, the one message the person watches while you work: what you are doing now and, " +
    'optionally, a checklist of steps. Repeating the same update is harmless.',
  input: () =>
    z
      .object({
        summary: z.string().min(1).max(300).describe('One line: what you are doing now.'),
        steps: z
          .array(
            z
              .object({
                title: z.string().min(1).describe('The step in a few words.'),
                state: z.enum(['pending', 'running', 'done', 'failed', 'skipped']).describe('Where the step stands.'),
              })
              .strict()
              .describe('One step of the plan.'),
          )
          .max(20)
          .optional()
          .describe('The plan as a checklist; replaces the previous one when given.'),
      })
      .strict(),
  sideEffect: 'write',
  publishes: false,
  concurrencySafe: true,
  executor: 'activity',
});
