import { z } from 'zod';

/**
 * How Switchboard reaches Slack. The bot token, signing secret and app-level token are
 * secrets and come from the environment only (SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET,
 * SLACK_APP_TOKEN; see `secrets.ts`). The front end is on when the first two are set.
 */
export const SlackConfigSchema = z
  .object({
    /** `http`: events arrive at `eventsPath` on our server; `socket`: Socket Mode (needs SLACK_APP_TOKEN). */
    mode: z.enum(['http', 'socket']).default('http'),
    /** Web API base URL (ends in `/api/`); the local Slack in tests and the offline demo. */
    apiUrl: z.url().default('https://slack.com/api/'),
    /** Where the Events API and interactivity requests arrive on our server. */
    eventsPath: z.string().startsWith('/').default('/slack/events'),
    /** The reaction that stops a run when added to its card or its request. */
    stopReaction: z.string().min(1).default('octagonal_sign'),
    /** Per-request timeout of Web API calls. */
    requestTimeoutMs: z.number().int().positive().default(10_000),
  })
  .strict();

export type SlackConfig = z.infer<typeof SlackConfigSchema>;
