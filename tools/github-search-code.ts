import { z } from './lazy-zod';
import { defineTool } from './tool';
import { repositoryField } from './github-fields';

export const githubSearchCodeTool = defineTool({
  name: 'github_search_code',
  description: 'Search code on GitHub (GitHub code-search syntax) and return paths with matching fragments.',
  input: () =>
    z
      .object({
        query: z.string().min(1).describe('The search, e.g. "parseDirectives language:ts".'),
        repo: repositoryField().optional().describe('Limit the search to this repository (owner/name).'),
        maxResults: z.number().int().min(1).max(100).optional().describe('How many results to return (default 20).'),
      })
      .strict(),
  sideEffect: 'read',
  publishes: false,
  concurrencySafe: true,
  executor: 'activity',
});
