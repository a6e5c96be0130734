import { z } from 'zod';

/**
 * Where the model providers are. API keys are secrets and come from the environment only
 * (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, see `secrets.ts`).
 */
export const ModelsConfigSchema = z
  .object({
    /** Per-request timeout of the API providers; a timeout is retried by Temporal. */
    requestTimeoutMs: z.number().int().positive().default(600_000),
    /**
     * The models a `model:` directive from chat (and a run's `task` call) may name: exact ids,
     * or a prefix ending in `*` (`openai:*`, `scripted:*`). Absent: the models the config
     * already names (`agents.defaults.model`, the agents', channels' and people's).
     */
    allowed: z.array(z.string().min(1)).optional(),
    /**
     * The directories `scripted:<name>/<file>` reads from, by name (absolute, or relative to
     * the base directory). Nothing outside them is read: no absolute path, no `..`, no
     * symbolic link out. The default keeps `scripted:examples/hello.yaml` working.
     */
    scriptedDirs: z
      .record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/, 'a directory name: letters, digits, - and _'), z.string().min(1))
      .default({ examples: 'examples' }),
    anthropic: z
      .object({
        /** Messages API base URL (a proxy or a local emulator); default https://api.anthropic.com. */
        baseUrl: z.url({ protocol: /^https?$/ }).optional(),
      })
      .strict()
      .prefault({}),
    openai: z
      .object({
        /** Any OpenAI-compatible server or router, including `/v1`; default https://api.openai.com/v1. */
        baseUrl: z.url({ protocol: /^https?$/ }).optional(),
        /** `max_tokens` for servers that do not know `max_completion_tokens`. */
        maxTokensField: z.enum(['max_completion_tokens', 'max_tokens']).default('max_completion_tokens'),
        /** Send the run's effort as `reasoning_effort` (only reasoning models accept it). */
        reasoningEffort: z.boolean().default(false),
        /** Send a per-run `prompt_cache_key`, so a run's turns reach the same prefix cache; false for a server that refuses unknown fields. */
        promptCacheKey: z.boolean().default(true),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export type ModelsConfig = z.infer<typeof ModelsConfigSchema>;
