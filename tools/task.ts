import { z } from './lazy-zod';
import { defineTool } from './tool';

/** The built-in roles the description names, in catalog order. */
const ROLES = ['explore', 'worker', 'reviewer', 'debug', 'researcher', 'general-purpose', 'task', 'rubber-duck'];

/** The task tool's description, naming the roles this run is offered (a run not offered rubber-duck does not see it: docs/agents.md). */
export function taskDescription(rolesOff: readonly string[] = []): string {
  return (
    `Delegate one self-contained task to a child run: a specialist role (${ROLES.filter((role) => !rolesOff.includes(role)).join(', ')}) ` +
    'or a read-only agent you may use. The child does not see your conversation ' +
    '(except debug, which starts from it with its tool results), so the prompt must carry every fact it needs. Several ' +
    'task calls in one turn run at the same time.'
  );
}

export const taskTool = defineTool({
  name: 'task',
  description: taskDescription(),
  input: () =>
    z
      .object({
        agent_type: z.string().min(1).describe('The role or agent to run, e.g. "explore" or "research".'),
        prompt: z.string().min(1).describe('The complete task: goal, context, constraints and the shape of the answer wanted.'),
        name: z
          .string()
          .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'lowercase words joined by hyphens')
          .describe('A short kebab-case label for the child, shown on the status card and in its run id.'),
        description: z
          .string()
          .min(1)
          .max(200)
          .optional()
          .describe(
            'A few words on what the task is for (e.g. "Consolidate session learnings"), kept with the child on the card and the record.',
          ),
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
