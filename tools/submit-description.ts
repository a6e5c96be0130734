import { z } from './lazy-zod';
import { defineTool } from './tool';

export const submitDescriptionTool = defineTool({
  name: 'submit_description',
  description:
    'Submit the pull request title and description for the change you made; call it once, after the branch holds the ' +
    'final change. In a direct coding run, Switchboard commits what is left, pushes the branch and opens the pull request ' +
    "(a draft) or updates it, and the result says what was pushed and opened. In a ship unit's coding run it is recorded: " +
    "when the run ends the unit commits, pushes and opens its pull request with it (or updates its own; a person's pull " +
    'request keeps its title and description), and the result says so.',
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
