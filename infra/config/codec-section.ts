import { z } from 'zod';

/**
 * The codec endpoint (`/codec/decode`, `/codec/encode` on the HTTP server): the remote-codec
 * protocol of Temporal's Web UI and `temporal` CLI, so operators read claim-checked payloads
 * there. Off unless enabled; callers present an API bearer token (`api.tokens`).
 */
export const CodecConfigSchema = z
  .object({
    enabled: z.boolean().default(false).describe('Serve the codec endpoint at /codec (and point the embedded Web UI at it).'),
    tokenIds: z
      .array(z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'an api.tokens id'))
      .optional()
      .describe('If set, only these api.tokens ids may call the endpoint; otherwise every API token that is not self-serve.'),
    corsOrigins: z
      .array(
        z
          .url({ protocol: /^https?$/ })
          .refine((url) => new URL(url).origin === url.replace(/\/$/, ''), 'an origin: scheme, host and port only (no path)'),
      )
      .default([])
      .describe(
        "Browser origins (a Web UI's, e.g. https://temporal.example.com) allowed to call the endpoint; the Web UI Switchboard links to (embedded, or temporal.uiUrl) is always allowed.",
      ),
    localWebUiWithoutToken: z
      .boolean()
      .default(true)
      .describe(
        'Let the Web UI Switchboard links to (embedded, or temporal.uiUrl) decode without a token when it is on a loopback address (it has no login to pass one): decode only, requests from loopback with that UI as Origin.',
      ),
    maxBodyBytes: z
      .number()
      .int()
      .positive()
      .default(8 * 1024 * 1024)
      .describe('Request bodies above this are refused with 413 (an encode carries whole payloads).'),
  })
  .strict();

export type CodecConfig = z.output<typeof CodecConfigSchema>;
