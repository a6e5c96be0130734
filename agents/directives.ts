import { isRepositoryName } from '../tools/github-fields';
import { type Effort, EFFORTS, type IgnoredDirective } from '../workflows/contracts/profile';

/**
 * The smallest budget a directive may ask for. Below it a run cannot clone, install and
 * answer, so `budget:1` is read as text and the run keeps the preset's budget.
 */
export const MIN_DIRECTIVE_BUDGET_MINUTES = 5;
/** A day: a larger number is a typo, read as text. */
export const MAX_DIRECTIVE_BUDGET_MINUTES = 24 * 60;

/** What a message asked for explicitly. Every field is absent unless a valid directive set it. */
export interface Directives {
  agent?: string;
  budgetMinutes?: number;
  model?: string;
  effort?: Effort;
  /** `owner/name` from `in <owner/name>:`. */
  repo?: string;
}

export interface ParsedMessage {
  directives: Directives;
  /** The message without its valid directives, trimmed. */
  text: string;
  ignored: IgnoredDirective[];
}

const KEYED = /^(agent|budget|model|effort):(\S*)/i;
const REPO = /^in\s+([A-Za-z0-9-]+\/[A-Za-z0-9._-]+):(?=\s|$)/i;
const AGENT_NAME = /^[a-z][a-z0-9-]{0,39}$/;
const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,99}$/;

/** What each directive accepts, for front ends that take the same choices as fields (the HTTP API). */
export const DIRECTIVE_PATTERNS = {
  agent: AGENT_NAME,
  model: MODEL_ID,
  repo: /^[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/,
} as const;

/**
 * Reads directives from the start of a message: `agent:<name>`, `budget:<minutes>`,
 * `model:<id>`, `effort:<low|medium|high>` and `in <owner/name>:`, in any order. Scanning
 * stops at the first word that is not directive-shaped. A malformed or repeated directive
 * is never a refusal: it stays in the text and is listed in `ignored`.
 */
export function parseDirectives(message: string): ParsedMessage {
  const directives: Directives = {};
  const ignored: IgnoredDirective[] = [];
  const keptAsText: string[] = [];
  let rest = message.trimStart();

  for (;;) {
    const repo = REPO.exec(rest);
    if (repo) {
      // A unit's workflow id is built from it, so it must be a name GitHub allows (lengths too).
      if (!isRepositoryName(repo[1])) ignore(repo[0], 'not a repository GitHub allows (owner/name)');
      else if (directives.repo === undefined) directives.repo = repo[1];
      else ignore(repo[0], 'repeated');
      rest = rest.slice(repo[0].length).trimStart();
      continue;
    }
    const keyed = KEYED.exec(rest);
    if (!keyed) break;
    const [token, rawKey, value] = keyed;
    const key = rawKey.toLowerCase() as 'agent' | 'budget' | 'model' | 'effort';
    const reason = apply(key, value);
    if (reason !== undefined) ignore(token, reason);
    rest = rest.slice(token.length).trimStart();
  }

  const text = [...keptAsText, rest].join(' ').trim();
  return { directives, text, ignored };

  function ignore(token: string, reason: string): void {
    keptAsText.push(token);
    ignored.push({ token, reason });
  }

  // Returns why the directive is text, or undefined when it was taken.
  function apply(key: 'agent' | 'budget' | 'model' | 'effort', value: string): string | undefined {
    if (key === 'agent') {
      const name = value.toLowerCase();
      if (!AGENT_NAME.test(name)) return 'not an agent name';
      return take('agent', name);
    }
    if (key === 'budget') {
      if (!/^\d+$/.test(value)) return 'budget is a whole number of minutes';
      const minutes = Number(value);
      if (minutes < MIN_DIRECTIVE_BUDGET_MINUTES) return `below the ${MIN_DIRECTIVE_BUDGET_MINUTES}-minute minimum`;
      if (minutes > MAX_DIRECTIVE_BUDGET_MINUTES) return `above the ${MAX_DIRECTIVE_BUDGET_MINUTES}-minute maximum`;
      return take('budgetMinutes', minutes);
    }
    if (key === 'model') {
      if (!MODEL_ID.test(value)) return 'not a model id';
      return take('model', value);
    }
    const effort = value.toLowerCase();
    if (!(EFFORTS as readonly string[]).includes(effort)) return `effort is one of ${EFFORTS.join(', ')}`;
    return take('effort', effort as Effort);
  }

  function take<K extends keyof Directives>(field: K, value: Directives[K]): string | undefined {
    if (directives[field] !== undefined) return 'repeated';
    directives[field] = value;
    return undefined;
  }
}
