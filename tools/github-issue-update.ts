import { z } from './lazy-zod';
import { defineTool } from './tool';
import { issueNumberField, repositoryField } from './github-fields';

export const githubIssueUpdateTool = defineTool({
  name: 'github_issue_update',
  description: 'Change an issue: its title, body, state or labels. Only the fields given change.',
  input: () =>
    z
      .object({
        repo: repositoryField(),
        number: issueNumberField(),
        title: z.string().min(1).max(256).optional().describe('The new title.'),
        body: z.string().optional().describe('The new body, in GitHub Markdown.'),
        state: z.enum(['open', 'closed']).optional().describe('Open or close the issue.'),
        labels: z.array(z.string().describe('A label name.')).optional().describe('The complete new label set.'),
      })
      .strict(),
  sideEffect: 'write',
  publishes: true,
  concurrencySafe: false,
  executor: 'activity',
});
