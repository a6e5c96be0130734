import { SECRET_VARIABLES } from '../../../infra/config/secrets';
import { REDACTED, redactShapes } from '../../../agents/secret-shapes';

export { REDACTED };

/** Environment variable names that hold secrets (beyond the ones Switchboard reads itself). */
const SECRET_NAME = /(TOKEN|SECRET|PASSWORD|PASSWD|PRIVATE_KEY|API_KEY|ACCESS_KEY)/i;

/** Values shorter than this are not redacted by value (a secret named `1` would blank every digit). */
const MIN_KNOWN_LENGTH = 8;

export type Redactor = (text: string) => string;

/**
 * The redaction every page's text goes through: the known secrets (this process's environment —
 * the worker's, where the pages run beside it — by value: every variable Switchboard reads a
 * secret from and any other whose name says secret) and anything shaped like a credential (the
 * shapes a board entry is cleaned of too).
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
    // The deployment's own secrets by value, then anything shaped like a credential (agents/secret-shapes.ts).
    return redactShapes(byValue ? text.replace(byValue, REDACTED) : text);
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
