import { z } from 'zod';

/**
 * Large payloads leave history: any payload above `claimCheckBytes` is stored by content
 * address in `dir` and history keeps a reference. Every worker, server and CLI of one
 * deployment must share the folder (the same host, or a shared mount).
 */
export const PayloadsConfigSchema = z
  .object({
    claimCheckBytes: z
      .number()
      .int()
      .min(1_024)
      .max(256 * 1024)
      .default(8 * 1024)
      .describe('Payloads larger than this many bytes are kept outside history, by reference.'),
    dir: z.string().min(1).optional().describe('The claim-check folder shared by every worker and client (default: <dataDir>/payloads).'),
  })
  .strict();
