import { z } from './lazy-zod';
import { defineTool } from './tool';
import { issueNumberField, repositoryField } from './github-fields';

export const githubIssueGetTool = defineTool({
  name: 'github_issue_get',
  description: 'Read one issue with its body, labels and comments.',
  input: () =>
    z
      .object({
        repo: repositoryField(),
        number: issueNumberField(),
      })
      .strict(),
  sideEffect: 'read',
  publishes: false,
  concurrencySafe: true,
  executor: 'activity',
});
