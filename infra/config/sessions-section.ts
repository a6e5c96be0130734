import { z } from 'zod';

/**
 * The live session pages (`/session/<workflow id>` on the HTTP server, server/session/). A page
 * opens with a link signed by the deployment's key for one workflow until it expires, or with an
 * API token. The key is `SWITCHBOARD_SESSION_SECRET` (environment only), else `<dataDir>/session.key`,
 * generated once (infra/session-links.ts).
 */
export const SessionsConfigSchema = z
  .object({
    enabled: z.boolean().default(true).describe('Serve the session pages at /session (and put their links on status cards).'),
    linkTtlHours: z
      .number()
      .positive()
      .max(24 * 90)
      .default(24 * 7)
      .describe('How long a signed page link stays valid, in hours (rounded up to the hour, so a card keeps one link for an hour).'),
  })
  .strict();

export type SessionsConfig = z.output<typeof SessionsConfigSchema>;
