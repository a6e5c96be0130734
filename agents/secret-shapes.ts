/**
 * What a credential looks like, whoever's it is: the shapes every page, every trajectory a
 * rem-agent reads and every board entry are cleaned of. Pure (patterns only), so the board's
 * workflow applies it to each entry it takes; the pages add the deployment's own secrets by value
 * (server/session/render/redact.ts).
 */

/** What a secret becomes. */
export const REDACTED = '[redacted]';

/** Each pattern's whole match is replaced. */
export const TOKEN_SHAPES: readonly RegExp[] = [
  /\bsbt_[A-Za-z0-9_-]{20,}/g, // Switchboard API tokens
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9_]{16,}/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack tokens
  /\bxapp-[A-Za-z0-9-]{10,}/g,
  /\bsk-(?:ant-)?[A-Za-z0-9_-]{20,}/g, // Anthropic and OpenAI keys
  /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, // AWS access key ids
  /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g, // JWTs
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
];

/** `Bearer <x>`, `token=<x>`, `"password": "<x>"`, a URL's `user:password@`: the secret part only. */
export const SECRET_CONTEXTS: ReadonlyArray<readonly [RegExp, string]> = [
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:)[^\s/@]+@/gi, `$1${REDACTED}@`],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{12,}/g, `$1 ${REDACTED}`],
  [
    /\b([A-Za-z_-]*(?:secret|token|passw(?:or)?d|api[_-]?key|access[_-]?key|private[_-]?key)[A-Za-z_]*["']?\s*[:=]\s*["']?)(?!\[redacted\])[^\s"',;]{6,}/gi,
    `$1${REDACTED}`,
  ],
];

/** `text` with everything shaped like a credential replaced by `[redacted]`. */
export function redactShapes(text: string): string {
  let out = text;
  for (const shape of TOKEN_SHAPES) out = out.replace(shape, REDACTED);
  for (const [pattern, replacement] of SECRET_CONTEXTS) out = out.replace(pattern, replacement);
  return out;
}
