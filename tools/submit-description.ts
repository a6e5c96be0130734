import { z } from './lazy-zod';
import { defineTool } from './tool';

export const submitDescriptionTool = defineTool({
  name: 'submit_description',
  description:
    'Submit the pull request title and description for the change you made. Switchboard commits what is left, pushes ' +
    'the branch and opens the pull request (a draft in a direct coding run) or updates it; call it once, after the ' +
    'branch holds the final change. The result says what was pushed and opened.',
  input: () =>
    z
      .object({
        title: z.string().min(1).max(120).describe('The PR title: imperative, under 72 characters when possible.'),
        body: z.string().min(1).describe('The PR description in GitHub Markdown: what changed, why, and how it was verified.'),
        testing: z
          .array(z.string().describe('One command with its result.'))
          .optional()
          .describe('The checks you ran and what they reported.'),
      })
      .strict(),
  sideEffect: 'write',
  publishes: true,
  concurrencySafe: false,
  executor: 'workflow',
});
