import { z } from './lazy-zod';
import { defineTool } from './tool';
import { repositoryField } from './github-fields';

export const unitStartTool = defineTool({
  name: 'unit_start',
  description:
    'Start a ship unit: one change carried from request to a ready pull request (coding, review, findings, checks). Linked to this conversation.',
  input: () =>
    z
      .object({
        repo: repositoryField(),
        request: z.string().min(1).describe('The change to make, in plain words, with every fact the coding run needs.'),
        slug: z
          .string()
          .regex(/^[a-z0-9][a-z0-9-]{1,48}$/, 'kebab-case')
          .optional()
          .describe('Short kebab-case name for the unit and its branch (derived from the request if absent).'),
        pullRequest: z.number().int().positive().optional().describe('Adopt this existing pull request instead of starting a new branch.'),
      })
      .strict(),
  sideEffect: 'write',
  publishes: true,
  concurrencySafe: false,
  executor: 'workflow',
});
