import { z } from './lazy-zod';
import { defineTool } from './tool';

export const listSkillsTool = defineTool({
  name: 'list_skills',
  description: 'List the skills (packaged how-to instructions) available to this run, with a one-line summary each.',
  input: () =>
    z
      .object({
        query: z.string().optional().describe('Only list skills whose name or summary mentions this text.'),
      })
      .strict(),
  sideEffect: 'read',
  publishes: false,
  concurrencySafe: true,
  executor: 'activity',
});
