import { z } from './lazy-zod';
import { defineTool } from './tool';
import { repositoryField } from './github-fields';

export const githubIssueListTool = defineTool({
  name: 'github_issue_list',
  description: 'List issues (not pull requests) of a repository, newest first.',
  input: () =>
    z
      .object({
        repo: repositoryField(),
        state: z.enum(['open', 'closed', 'all']).optional().describe('Which issues (default open).'),
        labels: z.array(z.string().describe('A label name.')).optional().describe('Only issues carrying all of these labels.'),
        maxResults: z.number().int().min(1).max(100).optional().describe('How many issues to return (default 30).'),
      })
      .strict(),
  sideEffect: 'read',
  publishes: false,
  concurrencySafe: true,
  executor: 'activity',
});
