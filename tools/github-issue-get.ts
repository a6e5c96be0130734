import { z } from './lazy-zod';
import { defineTool } from './tool';
import { issueNumberField, repositoryField } from './github-fields';

export const githubIssueGetTool = defineTool({
  name: 'github_issue_get',
  description:
    "Read one issue: title, state, labels, body and how many comments it has (github_pull_get reads a pull request's comments and reviews).",
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
