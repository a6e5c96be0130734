import { type Directives } from './directives';

/** Why the router chose what it chose; recorded on the run. */
export type RouteReason = 'directive' | 'sticky' | 'code-change' | 'compound-read-only' | 'classifier' | 'default';

export interface RouteInput {
  directives: Directives;
  /** The message text without its directives. */
  text: string;
  /** The agent an earlier explicit directive chose in this thread, if any. */
  stickyAgent?: string;
  /** Ids the requester may use here (the active, authorised set); rule picks outside it fall back. */
  available: readonly string[];
}

export interface RouteDecision {
  agent: string;
  reason: RouteReason;
  /** What the thread should remember as its sticky agent after this message. */
  stickyAgent?: string;
}

/** The agent a plain request falls back to; it must always be available. */
export const DEFAULT_AGENT = 'general';
/** Never chosen without an explicit directive: a plain change request gets review via ship. */
export const DIRECTIVE_ONLY_AGENTS: readonly string[] = ['coding'];

/**
 * Deterministic routing. An explicit `agent:` directive wins (authorisation comes after)
 * and becomes the thread's sticky agent; a thread with a sticky agent keeps it; a plain
 * code-change request goes to `ship`; a compound read-only request to `conductor`;
 * everything else to `general`. Only explicit choices stick: a routed request is routed
 * again next time, so a question after a shipped change is not sent to ship.
 */
export function route(input: RouteInput): RouteDecision {
  if (input.directives.agent !== undefined) {
    return { agent: input.directives.agent, reason: 'directive', stickyAgent: input.directives.agent };
  }
  if (input.stickyAgent !== undefined) {
    return { agent: input.stickyAgent, reason: 'sticky', stickyAgent: input.stickyAgent };
  }
  const ruled = ruleFor(input.text, input.directives.repo !== undefined);
  if (ruled !== undefined && input.available.includes(ruled.agent)) return ruled;
  return { agent: DEFAULT_AGENT, reason: 'default' };
}

function ruleFor(text: string, namesRepo: boolean): RouteDecision | undefined {
  if (isCodeChangeRequest(text, namesRepo)) return { agent: 'ship', reason: 'code-change' };
  if (isCompoundReadOnlyRequest(text)) return { agent: 'conductor', reason: 'compound-read-only' };
  return undefined;
}

const CHANGE_VERBS =
  /^(?:please\s+|can you\s+|could you\s+)?(fix|implement|add|change|update|refactor|rename|remove|delete|drop|bump|upgrade|migrate|port|rewrite|patch|replace|make|write|create|open)\b/i;
const CODE_NOUNS =
  /\b(pr|pull request|branch|commit|code|function|method|class|module|file|test|tests|endpoint|handler|bug|crash|error|type|types|config|dependency|dependencies|lint|build|ci|readme|docs?)\b|`[^`]+`|\b[\w-]+\.(ts|js|py|go|rs|java|rb|json|ya?ml|md|toml|sql|sh)\b/i;
const ISSUE_WORK = /\b(issue|issues|ticket|label|labels|milestone|comment)\b/i;

/**
 * A plain request to change code: an imperative change verb at the start, not a question,
 * about code (a code noun, a file, a PR) or in a named repository, and not issue work.
 */
export function isCodeChangeRequest(text: string, namesRepo = false): boolean {
  const trimmed = text.trim();
  if (!CHANGE_VERBS.test(trimmed) || (trimmed.endsWith('?') && !/^(can|could) you\b/i.test(trimmed))) return false;
  if (ISSUE_WORK.test(trimmed) && !/\b(pr|pull request)\b/i.test(trimmed)) return false;
  return namesRepo || CODE_NOUNS.test(trimmed);
}

/**
 * Several independent asks in one message, none of them a change: a list of two or more
 * items, or two or more questions.
 */
export function isCompoundReadOnlyRequest(text: string): boolean {
  const lines = text.split('\n').map((line) => line.trim());
  const items = lines.filter((line) => /^(\d+[.)]|[-*•])\s+\S/.test(line));
  const asks = items.length >= 2 ? items.map((line) => line.replace(/^(\d+[.)]|[-*•])\s+/, '')) : questionsIn(text);
  if (asks.length < 2) return false;
  return !asks.some((ask) => isCodeChangeRequest(ask));
}

function questionsIn(text: string): string[] {
  return text
    .split(/(?<=\?)\s+/)
    .map((part) => part.trim())
    .filter((part) => part.endsWith('?'));
}

/** What a model classifier sees: the text and the agents it may choose between. */
export interface ClassifierRequest {
  text: string;
  /** Routable, available agents with the description the router reads. */
  candidates: ReadonlyArray<{ id: string; description: string }>;
}

/**
 * The seam for a model classifier, consulted only when no rule matched. In a workflow it is
 * backed by an activity; its answer is validated, never trusted.
 */
export interface RouteClassifier {
  classify(request: ClassifierRequest): Promise<string | undefined>;
}

/**
 * `route`, then (only for the default case) the classifier. An answer outside the
 * candidates, or a directive-only agent, is ignored and the default stands.
 */
export async function routeWithClassifier(
  input: RouteInput,
  candidates: ClassifierRequest['candidates'],
  classifier: RouteClassifier,
): Promise<RouteDecision> {
  const decision = route(input);
  if (decision.reason !== 'default') return decision;
  const allowed = candidates.filter((c) => input.available.includes(c.id) && !DIRECTIVE_ONLY_AGENTS.includes(c.id));
  const answer = await classifier.classify({ text: input.text, candidates: allowed });
  if (answer !== undefined && allowed.some((c) => c.id === answer)) return { agent: answer, reason: 'classifier' };
  return decision;
}
