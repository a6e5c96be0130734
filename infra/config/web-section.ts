import { z } from 'zod';

/**
 * How runs reach the web (`web_fetch`, `web_search`) and where skills come from. Search API
 * keys are secrets and come from the environment only (BRAVE_SEARCH_API_KEY, TAVILY_API_KEY).
 */
export const WebConfigSchema = z
  .object({
    fetch: z
      .object({
        enabled: z.boolean().default(true).describe('Offer web_fetch to the agents whose toolset lists it.'),
        timeoutMs: z.number().int().positive().default(20_000).describe('The whole fetch, redirects and body included.'),
        maxBytes: z
          .number()
          .int()
          .positive()
          .default(5 * 1024 * 1024)
          .describe('Bytes of body read (after decompression); the rest is not read.'),
        maxRedirects: z.number().int().min(0).max(20).default(5),
        allowHosts: z
          .array(z.string().min(1))
          .default([])
          .describe(
            '`host` or `host:port` entries fetched even when they resolve to a loopback, private or link-local address (an intranet wiki, a test server). Empty by default.',
          ),
        userAgent: z.string().min(1).default('Switchboard/0.1 (web_fetch)'),
      })
      .strict()
      .prefault({}),
    search: z
      .object({
        provider: z.enum(['none', 'searxng', 'brave', 'tavily']).default('none').describe('The web_search backend; `none` turns it off.'),
        timeoutMs: z.number().int().positive().default(15_000),
        searxng: z
          .object({
            url: z
              .url({ protocol: /^https?$/ })
              .optional()
              .describe("SearXNG's base URL; its settings must enable the json format."),
          })
          .strict()
          .prefault({}),
        brave: z
          .object({ url: z.url({ protocol: /^https?$/ }).default('https://api.search.brave.com/res/v1/web/search') })
          .strict()
          .prefault({}),
        tavily: z
          .object({
            url: z.url({ protocol: /^https?$/ }).default('https://api.tavily.com/search'),
            searchDepth: z.enum(['basic', 'advanced']).default('basic'),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({})
      .superRefine((search, context) => {
        if (search.provider === 'searxng' && !search.searxng.url) {
          context.addIssue({
            code: 'custom',
            path: ['searxng', 'url'],
            message: 'web.search.provider is searxng: set web.search.searxng.url',
          });
        }
      }),
  })
  .strict();

export const SkillsConfigSchema = z
  .object({
    dirs: z
      .array(z.string().min(1))
      .default([])
      .describe(
        "Folders of skills (each skill a folder with a SKILL.md), relative to the config file's directory; offered beside the repository's .switchboard/skills/.",
      ),
  })
  .strict();

export type WebConfig = z.infer<typeof WebConfigSchema>;
export type SkillsConfig = z.infer<typeof SkillsConfigSchema>;
