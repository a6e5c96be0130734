import { z } from './lazy-zod';
import { defineTool } from './tool';
import { issueNumberField, repositoryField } from './github-fields';

export const githubPullGetTool = defineTool({
  name: 'github_pull_get',
  description:
    "Read one pull request: title, body, head and base, state, the head commit's checks, reviews with their line comments, comments, and the changed files with their diff.",
  input: () =>
    z
      .object({
        repo: repositoryField(),
        number: issueNumberField(),
        includeDiff: z.boolean().optional().describe('Include the patch of each changed file (default true).'),
      })
      .strict(),
  sideEffect: 'read',
  publishes: false,
  concurrencySafe: true,
  executor: 'activity',
});
