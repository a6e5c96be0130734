import { z } from './lazy-zod';
import { defineTool } from './tool';

export const taskTool = defineTool({
  name: 'task',
  description:
    'Delegate one self-contained task to a child run: a specialist role (explore, worker, reviewer, debug, researcher, ' +
    'general-purpose, task, rubber-duck) or a read-only agent you may use. The child does not see your conversation ' +
    '(except debug, which starts from it with its tool results), so the prompt must carry every fact it needs. Several ' +
    'task calls in one turn run at the same time.',
  input: () =>
    z
      .object({
        agent_type: z.string().min(1).describe('The role or agent to run, e.g. "explore" or "research".'),
        prompt: z.string().min(1).describe('The complete task: goal, context, constraints and the shape of the answer wanted.'),
        name: z
          .string()
          .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'lowercase words joined by hyphens')
          .describe('A short kebab-case label for the child, shown on the status card and in its run id.'),
        model: z.string().min(1).optional().describe('Run the child on this model instead of the resolved one.'),
        mode: z
          .enum(['sync', 'background'])
          .optional()
          .describe(
            'sync: wait for the answer in this call; background: return a job id at once and collect it later with wait_for_job (default background).',
          ),
      })
      .strict(),
  sideEffect: 'write',
  publishes: false,
  concurrencySafe: true,
  executor: 'child-run',
});
