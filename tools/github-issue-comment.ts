import { z } from './lazy-zod';
import { defineTool } from './tool';
import { issueNumberField, repositoryField } from './github-fields';

export const githubIssueCommentTool = defineTool({
  name: 'github_issue_comment',
  description: 'Comment on an issue or pull request. Posted at most once: a retry finds the first post instead of repeating it.',
  input: () =>
    z
      .object({
        repo: repositoryField(),
        number: issueNumberField(),
        body: z.string().min(1).describe('The comment, in GitHub Markdown.'),
      })
      .strict(),
  sideEffect: 'write',
  publishes: true,
  concurrencySafe: false,
  executor: 'activity',
});
