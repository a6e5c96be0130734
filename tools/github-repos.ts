import { z } from './lazy-zod';
import { defineTool } from './tool';

export const githubReposTool = defineTool({
  name: 'github_repos',
  description: "List the repositories this run's identity can see, with default branch, visibility and last push.",
  input: () =>
    z
      .object({
        owner: z.string().optional().describe('Only repositories of this user or organisation.'),
        query: z.string().optional().describe('Only repositories whose name contains this text.'),
      })
      .strict(),
  sideEffect: 'read',
  publishes: false,
  concurrencySafe: true,
  executor: 'activity',
});
