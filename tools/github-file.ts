import { z } from './lazy-zod';
import { defineTool } from './tool';
import { refField, repositoryField } from './github-fields';

export const githubFileTool = defineTool({
  name: 'github_file',
  description: 'Read one file of a repository at a ref through the GitHub API, without cloning it.',
  input: () =>
    z
      .object({
        repo: repositoryField(),
        path: z.string().min(1).describe('Path of the file in the repository.'),
        ref: refField(),
      })
      .strict(),
  sideEffect: 'read',
  publishes: false,
  concurrencySafe: true,
  executor: 'activity',
});
