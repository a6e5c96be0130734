import { z } from './lazy-zod';
import { defineTool } from './tool';
import { refField, repositoryField } from './github-fields';

export const githubTreeTool = defineTool({
  name: 'github_tree',
  description: 'List the files and folders of a repository at a ref, optionally under one folder, without cloning it.',
  input: () =>
    z
      .object({
        repo: repositoryField(),
        ref: refField(),
        path: z.string().optional().describe('Folder to list (default: the root).'),
        recursive: z.boolean().optional().describe('List everything below the folder, not just its entries (default false).'),
      })
      .strict(),
  sideEffect: 'read',
  publishes: false,
  concurrencySafe: true,
  executor: 'activity',
});
