import { z } from './lazy-zod';
import { defineTool } from './tool';

export const webSearchTool = defineTool({
  name: 'web_search',
  description: 'Search the web and return result titles, URLs and snippets. Search to discover; fetch to read.',
  input: () =>
    z
      .object({
        query: z.string().min(1).max(400).describe('What to search for, as you would type it.'),
        maxResults: z.number().int().min(1).max(20).optional().describe('How many results to return (default 8).'),
      })
      .strict(),
  sideEffect: 'read',
  publishes: false,
  concurrencySafe: true,
  executor: 'activity',
});
