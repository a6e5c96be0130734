import { z } from './lazy-zod';
import { defineTool } from './tool';
import { repositoryField } from './github-fields';

export const githubIssueCreateTool = defineTool({
  name: 'github_issue_create',
  description: 'Open a new issue in a repository. Posted at most once: a retry finds the first post instead of repeating it.',
  input: () =>
    z
      .object({
        repo: repositoryField(),
        title: z.string().min(1).max(256).describe('The issue title.'),
        body: z.string().describe('The issue body, in GitHub Markdown.'),
        labels: z.array(z.string().describe('A label name.')).optional().describe('Labels to set on the new issue.'),
      })
      .strict(),
  sideEffect: 'write',
  publishes: true,
  concurrencySafe: false,
  executor: 'activity',
});
