import { z } from './lazy-zod';
import { defineTool } from './tool';

export const webFetchTool = defineTool({
  name: 'web_fetch',
  description: 'Fetch one public URL and return its main text (HTML converted to Markdown), truncated to a limit.',
  input: () =>
    z
      .object({
        url: z.url().describe('The http(s) URL to fetch.'),
        maxCharacters: z
          .number()
          .int()
          .min(1_000)
          // Every turn's model call carries the whole conversation as its activity input, so one
          // page is kept well below Temporal's payload limit.
          .max(100_000)
          .optional()
          .describe('Truncate the text after this many characters (default 40000).'),
      })
      .strict(),
  sideEffect: 'read',
  publishes: false,
  concurrencySafe: true,
  executor: 'activity',
});
