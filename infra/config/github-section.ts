import { z } from 'zod';
import { PushesConfigSchema } from './pushes-section';

/**
 * Where GitHub is and which App (if any) Switchboard acts as. Tokens and the App's private
 * key are secrets and come from the environment only (`secrets.ts`).
 */
export const GitHubConfigSchema = z
  .object({
    /** REST base URL; GitHub Enterprise Server uses `https://<host>/api/v3`. */
    apiUrl: z.url().default('https://api.github.com'),
    /** Base URL git clones and pushes go to (`<gitUrl>/<owner>/<repo>.git`). */
    gitUrl: z.url().default('https://github.com'),
    /** The GitHub App's id; when set (with GITHUB_APP_PRIVATE_KEY) the App is used instead of personal tokens. */
    appId: z.string().min(1).optional(),
    /** The App installation that holds the repositories. */
    installationId: z.number().int().positive().optional(),
    /** The login people mention (`@<botLogin>`) to talk to Switchboard on GitHub. */
    botLogin: z.string().min(1).default('switchboard'),
    /** Webhook bodies larger than this are refused with 413. */
    webhookMaxBodyBytes: z
      .number()
      .int()
      .positive()
      .default(5 * 1024 * 1024),
    /** Per-request timeout of GitHub API calls. */
    requestTimeoutMs: z.number().int().positive().default(20_000),
    /** What runs and units may push: their own branches under a prefix, admitted pull requests' branches (pushes-section.ts). */
    pushes: PushesConfigSchema.prefault({}),
  })
  .strict();

export type GitHubConfig = z.infer<typeof GitHubConfigSchema>;
