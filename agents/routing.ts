import { type Directives } from './directives';

/** Why the router chose what it chose; recorded on the run (and shown on its card). */
export type RouteReason =
  | 'directive'
  | 'sticky'
  | 'review-request'
  | 'code-change'
  | 'compound-read-only'
  | 'repo-question'
  | 'research-question'
  | 'classifier'
  | 'default';

/** Where the message came from, as far as routing needs it. */
export interface RouteConversation {
  kind: 'slack' | 'github' | 'api' | 'cli';
  /** A GitHub conversation on a pull request (not a plain issue). */
  pullRequest?: boolean;
}

export interface RouteInput {
  directives: Directives;
  /** The message text without its directives. */
  text: string;
  /** The agent an earlier explicit directive chose in this thread, if any. */
  stickyAgent?: string;
  /** Ids the requester may use here (the active, authorised set); rule picks outside it fall back. */
  available: readonly string[];
  /**
   * Ids of the agents the router may pick (`routable: true`); with it the rules find review,
   * explore and research too. Absent: the rules of before (ship, conductor), for replayed histories.
   */
  routable?: readonly string[];
  conversation?: RouteConversation;
  /** A classifier's answer for a message no rule placed (thread.ts asks it); used only when it is a candidate. */
  classified?: { agent: string; why: string };
}

export interface RouteDecision {
  agent: string;
  reason: RouteReason;
  /** What the thread should remember as its sticky agent after this message. */
  stickyAgent?: string;
  /** Why, in words, for the run's card (a classifier's own reason). */
  note?: string;
}

/** The agent a plain request falls back to; it must always be available. */
export const DEFAULT_AGENT = 'general';
/** Never chosen without an explicit directive: a plain change request gets review via ship. */
export const DIRECTIVE_ONLY_AGENTS: readonly string[] = ['coding'];

/**
 * Deterministic routing. An explicit `agent:` directive wins (authorisation comes after)
 * and becomes the thread's sticky agent; a thread with a sticky agent keeps it. Then the rules
 * for the clear cases, in order: a review request on a pull request goes to `review`; a plain
 * code-change request to `ship`; a compound read-only request to `conductor`; a question about a
 * named repository's code to `explore`; a research question to `research`. A rule picks only an
 * agent that is routable and available to the person; otherwise, and when no rule matched, a
 * classifier's answer (when the thread asked one) or `general`. Only explicit choices stick: a
 * routed request is routed again next time, so a question after a shipped change is not sent to ship.
 */
export function route(input: RouteInput): RouteDecision {
  if (input.directives.agent !== undefined) {
    return { agent: input.directives.agent, reason: 'directive', stickyAgent: input.directives.agent };
  }
  if (input.stickyAgent !== undefined) {
    return { agent: input.stickyAgent, reason: 'sticky', stickyAgent: input.stickyAgent };
  }
  const ruled = input.routable === undefined ? legacyRuleFor(input.text, input.directives.repo !== undefined) : ruleFor(input);
  if (ruled !== undefined && routableFor(input, ruled.agent)) return ruled;
  if (input.classified && routableFor(input, input.classified.agent)) {
    return { agent: input.classified.agent, reason: 'classifier', note: input.classified.why };
  }
  return { agent: DEFAULT_AGENT, reason: 'default', ...(input.routable ? { note: 'no routing rule matched' } : {}) };
}

/** Whether the router may pick `agent` for this person: available here, routable, and not directive-only. */
export function routableFor(input: Pick<RouteInput, 'available' | 'routable'>, agent: string): boolean {
  if (!input.available.includes(agent) || DIRECTIVE_ONLY_AGENTS.includes(agent)) return false;
  return input.routable === undefined || input.routable.includes(agent);
}

/** The rules before review, explore and research were found (histories recorded before replay with them). */
function legacyRuleFor(text: string, namesRepo: boolean): RouteDecision | undefined {
  if (isCodeChangeRequest(text, namesRepo)) return { agent: 'ship', reason: 'code-change' };
  if (isCompoundReadOnlyRequest(text)) return { agent: 'conductor', reason: 'compound-read-only' };
  return undefined;
}

function ruleFor(input: RouteInput): RouteDecision | undefined {
  const { text } = input;
  const repo = input.directives.repo;
  if (input.conversation?.kind === 'github' && input.conversation.pullRequest && isReviewRequest(text)) {
    return { agent: 'review', reason: 'review-request', note: 'a review request on a pull request' };
  }
  if (isCodeChangeRequest(text, repo !== undefined)) return { agent: 'ship', reason: 'code-change', note: 'a code-change request' };
  if (isCompoundReadOnlyRequest(text))
    return { agent: 'conductor', reason: 'compound-read-only', note: 'several independent read-only asks' };
  if (repo !== undefined && isRepositoryQuestion(text)) {
    return { agent: 'explore', reason: 'repo-question', note: `a question about ${repo}'s code` };
  }
  if (repo === undefined && isResearchQuestion(text))
    return { agent: 'research', reason: 'research-question', note: 'a research question' };
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

const REVIEW_VERB = /^(?:re-?review|review|code[- ]review|take a look at|look over|check)\b/i;
const REVIEW_OBJECT =
  /^(?:(?:it|again|please)\b|(?:this|the|my|our|these)\s+(?:pr|pull request|change|changes|diff|patch|commit|commits)\b|[.!?]*$)/i;

/**
 * A request to review the pull request it was asked on: "review this PR", "@switchboard please
 * review the changes", "can you re-review?". Not when it also asks for a change.
 */
export function isReviewRequest(text: string): boolean {
  const ask = text
    .trim()
    .replace(/^@\S+[\s,:]*/, '')
    .replace(/^(?:please|can you|could you|would you)\s+/i, '');
  if (!REVIEW_VERB.test(ask) || /\b(?:and|then)\s+(?:fix|change|update)\b/i.test(ask)) return false;
  return REVIEW_OBJECT.test(ask.replace(REVIEW_VERB, '').trim());
}

const QUESTION_START = /^(?:why|how|where|what|which|when|who|does|do|is|are|can|could|should|will|would|has|have)\b/i;
const CODE_TOPIC =
  /\b(code|function|method|class|module|file|files|test|tests|build|builds|compile|ci|pipeline|benchmark|slow|fast|performance|dependency|dependencies|endpoint|handler|crash|error|errors|bug|flaky|coverage|lint|type|types|config)\b|`[^`]+`|\b[\w-]+\.(ts|js|py|go|rs|java|rb|json|ya?ml|toml|sql|sh)\b/i;

/** A question about a repository's code (the caller checks a repository was named): interrogative, about code, not issue work. */
export function isRepositoryQuestion(text: string): boolean {
  const trimmed = text.trim();
  const question = trimmed.endsWith('?') || QUESTION_START.test(trimmed);
  return question && CODE_TOPIC.test(trimmed) && !ISSUE_WORK.test(trimmed) && !isCodeChangeRequest(trimmed, true);
}

const RESEARCH_ASK =
  /^(?:please\s+|can you\s+|could you\s+)?(?:research|look up|look into|find out|find sources|search (?:the\s+)?(?:web|internet|online))\b|\b(?:with|cite|citing|cited|give me|include) (?:sources|citations|references)\b|\b(?:on the web|online|latest (?:version|release)|release notes|changelog)\b/i;

/** A question the web answers: an ask to research or look something up, or one that wants sources. */
export function isResearchQuestion(text: string): boolean {
  const trimmed = text.trim();
  return RESEARCH_ASK.test(trimmed) && !isCodeChangeRequest(trimmed) && !ISSUE_WORK.test(trimmed);
}

/** What a model classifier sees: the text and the agents it may choose between. */
export interface ClassifierRequest {
  text: string;
  /** Routable, available agents with the description the router reads. */
  candidates: ReadonlyArray<{ id: string; description: string }>;
}

/** A classifier's choice and its reason in a few words (shown on the run's card). */
export interface ClassifierAnswer {
  agent: string;
  why: string;
}

/**
 * The seam for a model classifier, consulted only when no rule matched. In a workflow it is
 * backed by a model turn (workflows/thread.ts, `routing` purpose); its answer is validated, never trusted.
 */
export interface RouteClassifier {
  classify(request: ClassifierRequest): Promise<ClassifierAnswer | undefined>;
}

/** The agents a classifier may choose between here: routable, available to the person, never a directive-only one. */
export function classifierCandidates(
  agents: ReadonlyArray<{ id: string; description: string; routable: boolean }>,
  available: readonly string[],
): ClassifierRequest['candidates'] {
  return agents
    .filter((agent) => agent.routable && routableFor({ available }, agent.id))
    .map((agent) => ({ id: agent.id, description: agent.description }));
}

/** The most a classifier's reason may run to on a card. */
export const CLASSIFIER_WHY_MAX = 160;

/** The classifier turn's system prompt and message: the catalog's descriptions, and one line of JSON to answer with. */
export function classifierPrompt(request: ClassifierRequest): { system: string; message: string } {
  const lines = request.candidates.map((candidate) => `- ${candidate.id}: ${candidate.description}`);
  return {
    system: [
      "You route a team member's message to one of Switchboard's agents. Choose the agent whose description fits the request best; when none fits better, choose general.",
      'The agents:',
      ...lines,
      'Answer with one line of JSON and nothing else: {"agent": "<id>", "why": "<a few words>"}.',
    ].join('\n'),
    message: request.text,
  };
}

/** The classifier's answer when it names a candidate, with its reason cut to a card line; undefined otherwise. */
export function readClassifierAnswer(text: string, candidates: ClassifierRequest['candidates']): ClassifierAnswer | undefined {
  const json = /\{[^{}]*\}/.exec(text)?.[0];
  if (!json) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return undefined;
  }
  const { agent, why } = (parsed ?? {}) as { agent?: unknown; why?: unknown };
  if (typeof agent !== 'string' || !candidates.some((candidate) => candidate.id === agent)) return undefined;
  const reason = typeof why === 'string' && why.trim() ? why.trim().replace(/\s+/g, ' ') : 'the classifier chose it';
  return { agent, why: reason.length > CLASSIFIER_WHY_MAX ? `${reason.slice(0, CLASSIFIER_WHY_MAX - 1)}…` : reason };
}

/**
 * `route`, then (only when no rule matched) the classifier over the routable, available
 * candidates. An answer outside them, or a directive-only agent, is ignored and the default stands.
 */
export async function routeWithClassifier(
  input: RouteInput,
  candidates: ClassifierRequest['candidates'],
  classifier: RouteClassifier,
): Promise<RouteDecision> {
  const decision = route(input);
  if (decision.reason !== 'default') return decision;
  const allowed = candidates.filter((c) => routableFor(input, c.id));
  const answer = await classifier.classify({ text: input.text, candidates: allowed });
  if (answer === undefined || !allowed.some((c) => c.id === answer.agent)) return decision;
  return route({ ...input, classified: answer });
}
