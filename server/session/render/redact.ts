import { SECRET_VARIABLES } from '../../../infra/config/secrets';

/** What a secret becomes on a page. */
export const REDACTED = '[redacted]';

/**
 * Shapes of credentials, whoever's they are: a run's output may hold a token it found, and a page
 * shows it to people who should not have it. Each pattern's whole match is replaced.
 */
const TOKEN_SHAPES: RegExp[] = [
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
const SECRET_CONTEXTS: Array<[RegExp, string]> = [
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:)[^\s/@]+@/gi, `$1${REDACTED}@`],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{12,}/g, `$1 ${REDACTED}`],
  [
    /\b([A-Za-z_-]*(?:secret|token|passw(?:or)?d|api[_-]?key|access[_-]?key|private[_-]?key)[A-Za-z_]*["']?\s*[:=]\s*["']?)(?!\[redacted\])[^\s"',;]{6,}/gi,
    `$1${REDACTED}`,
  ],
];

/** Environment variable names that hold secrets (beyond the ones Switchboard reads itself). */
const SECRET_NAME = /(TOKEN|SECRET|PASSWORD|PASSWD|PRIVATE_KEY|API_KEY|ACCESS_KEY)/i;

/** Values shorter than this are not redacted by value (a secret named `1` would blank every digit). */
const MIN_KNOWN_LENGTH = 8;

export type Redactor = (text: string) => string;

/**
 * The redaction every page's text goes through: the known secrets (this process's environment —
 * the worker's, where the pages run beside it — by value: every variable Switchboard reads a
 * secret from and any other whose name says secret) and anything shaped like a credential.
 */
export function createRedactor(env: NodeJS.ProcessEnv = process.env, extra: readonly string[] = []): Redactor {
  const names = new Set<string>(Object.values(SECRET_VARIABLES));
  for (const name of Object.keys(env)) if (SECRET_NAME.test(name)) names.add(name);
  const known = [...[...names].map((name) => env[name]), ...extra]
    .filter((value): value is string => typeof value === 'string' && value.length >= MIN_KNOWN_LENGTH)
    // Longest first, so a secret that contains another is replaced whole.
    .sort((a, b) => b.length - a.length);
  const byValue = known.length ? new RegExp(known.map(escapeRegExp).join('|'), 'g') : undefined;
  return (text: string) => {
    let out = byValue ? text.replace(byValue, REDACTED) : text;
    for (const shape of TOKEN_SHAPES) out = out.replace(shape, REDACTED);
    for (const [pattern, replacement] of SECRET_CONTEXTS) out = out.replace(pattern, replacement);
    return out;
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
