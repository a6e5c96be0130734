import { z } from './lazy-zod';
import { defineTool } from './tool';

export const attachFileTool = defineTool({
  name: 'attach_file',
  description: 'Post a file from the workspace to the conversation (Slack thread or PR comment) as an attachment.',
  input: () =>
    z
      .object({
        path: z.string().min(1).describe('Path of the file inside the workspace.'),
        title: z.string().optional().describe('The name shown for the attachment (default: the file name).'),
        comment: z.string().optional().describe('A line posted with the file.'),
      })
      .strict(),
  sideEffect: 'write',
  publishes: true,
  concurrencySafe: false,
  executor: 'activity',
});
