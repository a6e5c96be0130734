import type { AdmissionConfig } from '../infra/config/admission-section';
import { authorize, reachesShell, type Requester } from './access';
import { type Catalog, getAgent } from './catalog';
import { type AgentsConfig } from './config';
import { type BoardPolicy } from './board';
import { type AgentDefinition, listedTools } from './definition';
import { DEFAULT_ADMISSION, githubRequirement, roleAtLeast, type GitHubRole } from './github-roles';
import type { McpAdmission } from '../workflows/contracts/mcp';
import { admitMcp, type McpAttachmentConfig, type McpSetup } from './mcp';
import { allowedModels, checkModelChoice, splitModelId } from './model-choice';
import type { RefusalCode } from '../workflows/contracts/refusals';

// The one admission: every door (Slack, GitHub, HTTP, MCP, CLI, the orchestrator's tools,
// `task` children, plans) asks these two functions who may start what (`admitStart`) and who
// may read, steer or stop what (`admitControl`). Pure: a door gathers the facts (the catalog
// and config, the sandbox's readiness, a GitHub actor's role) and answers the refusal's
// sentence in the conversation the request came from.

/** What the admission decides from: the deployment's agent setup (activities/agents/agent-setup.ts has this shape). */
export interface AdmissionFacts {
  catalog: Catalog;
  config: AgentsConfig;
  /** `models.allowed` (absent: the models the config already names). */
  allowedModels?: string[];
  /** Whether the deployment can isolate shell commands; absent: unknown here (a unit then refuses itself when it starts). */
  sandbox?: { ready: boolean; reason?: string; fix?: string };
  /** The `admission` section (absent: its defaults). */
  admission?: AdmissionConfig;
  /**
   * The agents each repository allows, by lower-case `owner/name`: the deployment's `repositories`
   * section, and where a door read it, the repository's own `.switchboard.yml` merged in (absent: no limit).
   */
  repositories?: Record<string, RepositoryAgents>;
  /** The `mcp` section's servers and attachments (absent: no MCP servers). */
  mcp?: McpSetup;
  /**
   * MCP attachments a repository adds, by lower-case `owner/name` then agent id: its `.switchboard.yml`
   * `mcp.agents` (or the deployment's `repositories` section), where a door read it. Admitted as the
   * deployment's own are: only servers `mcp` configures, for the people they allow.
   */
  repositoryMcp?: Record<string, Record<string, McpAttachmentConfig[]>>;
}

/** The agents a repository allows, and the setting that says so (named in a refusal). */
export interface RepositoryAgents {
  allowed: string[];
  rule: string;
}

/** Who asks, as the door verified them. */
export interface Person extends Requester {
  /** A GitHub actor's role on the repository, read from GitHub's collaborator permission API by the GitHub door. */
  githubRole?: GitHubRole;
  /** An operator: the CLI, an API token with `admin`, or someone `admission.operators` names. */
  operator?: boolean;
}

/** The conversation a request came from, as far as the admission needs it. */
export interface Conversation {
  kind: 'slack' | 'github' | 'api' | 'cli';
  repo?: string;
  /** A GitHub conversation on a plain issue (not a pull request). */
  issue?: boolean;
  /** A verified private Slack DM between the person and Switchboard. */
  privateDm?: boolean;
}

export interface StartRequest {
  person: Person;
  /** The agent the request resolved to (after directives and routing). */
  agent: string;
  /** A model the request itself chose (a directive, the API's `model`, a tool argument). */
  model?: string;
  /** The request's text, directives taken out; absent at doors that carry none (the text check is skipped). */
  text?: string;
  /** The repository the work is on, when it names or implies one. */
  repo?: string;
  conversation?: Conversation;
  /** Rules a replayed history was decided without (the thread passes what `patched()` says). */
  skip?: ReadonlyArray<'github_actor'>;
  /** The board a consolidating run (rem-agent) is started for: only a board starts one. */
  board?: string;
}

export interface AdmissionRefusal {
  ok: false;
  code: RefusalCode;
  /** The config key or rule that refused. */
  rule: string;
  /** The sentence the person is answered with. */
  message: string;
  /** The agents this person may use here (access refusals). */
  alternatives?: string[];
}

/** Admitted, with the MCP servers this person's run of the agent may use (absent: none is configured). */
export type Admitted = { ok: true; agent: AgentDefinition; mcp?: McpAdmission };
export type Admission = Admitted | AdmissionRefusal;

/** One rule of the start decision: undefined when it has nothing against the request. */
export type StartCheck = (facts: AdmissionFacts, request: StartRequest, agent: AgentDefinition) => Omit<AdmissionRefusal, 'ok'> | undefined;

/**
 * Whether `request.person` may start `request.agent` here. First the access rules
 * (agents/access.ts: catalog, surface, restrict, channel, person and token grants, self-serve),
 * then `START_CHECKS` in order; the first refusal answers. Budgets and effort are not refused:
 * the profile resolver only ever narrows them (agents/profile.ts).
 */
export function admitStart(facts: AdmissionFacts, request: StartRequest, extra: readonly StartCheck[] = []): Admission {
  const access = authorize(facts.catalog, facts.config, request.person, request.agent);
  if (!access.ok) return access;
  for (const check of [...START_CHECKS, ...extra]) {
    const refused = check(facts, request, access.agent);
    if (refused) return { ok: false, ...refused };
  }
  // Which of the agent's MCP servers the person's run may use: a refused server leaves the run without its tools, never refuses the run.
  if (!facts.mcp) return { ok: true, agent: access.agent };
  const repo = (request.repo ?? request.conversation?.repo)?.toLowerCase();
  const fromRepo = repo ? (facts.repositoryMcp?.[repo]?.[access.agent.id] ?? []) : [];
  return { ok: true, agent: access.agent, mcp: admitMcp(facts.mcp, request.person, access.agent, fromRepo) };
}

/** A GitHub trigger needs the actor's role on the repository (admission.github; write by default). */
export const githubActorCheck: StartCheck = (facts, request, agent) => {
  const { person } = request;
  if (person.surface !== 'github' || request.skip?.includes('github_actor')) return undefined;
  const repo = request.conversation?.repo ?? request.repo;
  const required = githubRequirement(facts.admission, repo, agent);
  const login = person.userId?.replace(/^github:/, '') ?? 'someone';
  // The door read the actor's role on the conversation's repository only: work on another one is not theirs to ask for here.
  if (request.repo && repo && request.repo.toLowerCase() !== repo.toLowerCase())
    return {
      code: 'actor_permission',
      rule: required.rule,
      message: `A request on ${repo} works on ${repo}; @${login}'s role on ${request.repo} is not known here, so nothing was run. Ask on ${request.repo}.`,
    };
  if (person.githubRole === undefined)
    return {
      code: 'actor_unverified',
      rule: required.rule,
      message: `GitHub did not say what @${login}'s role on ${repo ?? 'the repository'} is, so nothing was run. Ask again in a moment.`,
    };
  if (roleAtLeast(person.githubRole, required.role)) return undefined;
  return {
    code: 'actor_permission',
    rule: required.rule,
    message:
      `${agent.displayName} needs the ${required.role} role on ${repo ?? 'the repository'} (${required.rule}), ` +
      `and @${login}'s role there is ${person.githubRole}, so nothing was run.`,
  };
};

/** A model the request chose must be one a message may choose (models.allowed; scripted paths stay inside). */
export const modelCheck: StartCheck = (facts, request) => {
  if (request.model === undefined) return undefined;
  const allowed = allowedModels(facts.catalog, facts.config, facts.allowedModels);
  const choice = checkModelChoice({ model: request.model, surface: request.person.surface, allowed });
  return choice.ok ? undefined : { code: 'model_not_allowed', rule: choice.rule, message: choice.message };
};

/** A message that only names an agent asks nothing (the thread keeps the agent and asks what to do). */
export const requestCheck: StartCheck = (_facts, request, agent) =>
  request.text === undefined || request.text
    ? undefined
    : { code: 'request_missing', rule: 'request text', message: `Noted: this thread now uses ${agent.displayName}. What should it do?` };

/** No isolation, no shell: an agent that reaches a shell is refused while the sandbox cannot isolate commands. */
export const sandboxCheck: StartCheck = (facts, _request, agent) => {
  const sandbox = facts.sandbox;
  if (!sandbox || sandbox.ready || !reachesShell(agent)) return undefined;
  return {
    code: 'sandbox_unavailable',
    rule: 'sandbox.isolation',
    message:
      `${agent.displayName} needs a sandboxed shell, and this Switchboard cannot isolate shell commands right now ` +
      `(${sandbox.reason ?? 'the sandbox is unavailable'}), so nothing was run. An operator can fix it: ${sandbox.fix ?? 'see docs/sandbox.md'}.`,
  };
};

/** An agent that reviews a pull request, asked on a plain issue, says so instead of failing on a missing PR. */
export const pullRequestCheck: StartCheck = (_facts, request, agent) => {
  if (!request.conversation?.issue || !listedTools(agent).includes('submit_review')) return undefined;
  if (request.text !== undefined && /#\d+/.test(request.text)) return undefined;
  return {
    code: 'needs_pull_request',
    rule: `${agent.id} works on a pull request`,
    message: `${agent.displayName} works on a pull request, and this is an issue, so nothing was run. Ask on the pull request, or name it here (e.g. "review #12").`,
  };
};

/** An agent the repository leaves out of its `agents.allowed` does not run on it, whoever asks. */
export const repositoryAgentsCheck: StartCheck = (facts, request, agent) =>
  repositoryRefusal(facts.repositories, request.repo ?? request.conversation?.repo, agent);

/** Why `agent` may not run on `repo` by the repositories' agent lists, or undefined. */
export function repositoryRefusal(
  repositories: AdmissionFacts['repositories'],
  repo: string | undefined,
  agent: Pick<AgentDefinition, 'id' | 'displayName'>,
): Omit<AdmissionRefusal, 'ok'> | undefined {
  const policy = repo ? repositories?.[repo.toLowerCase()] : undefined;
  if (!repo || !policy || policy.allowed.includes(agent.id)) return undefined;
  return {
    code: 'repo_agent_not_allowed',
    rule: policy.rule,
    message:
      `${repo} allows only ${policy.allowed.length ? policy.allowed.join(', ') : 'no agent'} to run on it (${policy.rule}), ` +
      `and not ${agent.displayName}, so nothing was run.`,
  };
}

/** An agent that writes a board (rem-agent) is started by a board for the work it reads, never by a message or a task. */
export const boardAgentCheck: StartCheck = (_facts, request, agent) => {
  if (request.board !== undefined || !listedTools(agent).includes('context_board')) return undefined;
  return {
    code: 'board_agent_only',
    rule: `${agent.id} is started by a board`,
    message:
      `${agent.displayName} reads finished work and updates the team board; it is started with /subconscious run in a conversation, ` +
      'or by the board itself after work ends where the repository turns that on (board.consolidate), so nothing was run.',
  };
};

/**
 * The start decision's rules after access, in order. Another rule (e.g. a spend cap) is one
 * more `StartCheck` appended here, with the fact it needs added to `AdmissionFacts` and its
 * code to workflows/contracts/refusals.ts; every door then refuses on it alike.
 */
export const START_CHECKS: readonly StartCheck[] = [
  githubActorCheck,
  repositoryAgentsCheck,
  modelCheck,
  requestCheck,
  sandboxCheck,
  pullRequestCheck,
  boardAgentCheck,
];

/**
 * The names a request gives (its `agent:` and `model:`, the API's `agent` and `model`, the CLI's
 * `--agent` and `--model`): an agent no catalog entry has, or a model Switchboard has no provider
 * for (or a scripted path that leaves the scripted directories), is refused at the door, before
 * any thread or unit exists, whoever asks (an operator's CLI too: a run could do nothing with it).
 * Whether this person may use a known agent or model is `admitStart`'s, in the thread.
 */
export function namesRefusal(
  facts: Pick<AdmissionFacts, 'catalog'>,
  names: { agent?: string; model?: string },
): AdmissionRefusal | undefined {
  if (names.agent !== undefined && !getAgent(facts.catalog, names.agent)) {
    const known = facts.catalog.agents.map((agent) => agent.id);
    return {
      ok: false,
      code: 'agent_unknown',
      rule: 'catalog',
      message: `There is no agent called "${names.agent}", so nothing was started. The agents are ${known.join(', ')}.`,
      alternatives: known,
    };
  }
  if (names.model === undefined) return undefined;
  const split = splitModelId(names.model);
  if (!split)
    return {
      ok: false,
      code: 'model_unknown',
      rule: 'model providers',
      message:
        `There is no model called "${names.model}", so nothing was started. A model is anthropic:<id>, openai:<id> or ` +
        'scripted:<path> (a claude-… or gpt-… id needs no prefix).',
    };
  const choice = checkModelChoice({ model: names.model, surface: 'cli', allowed: [] });
  return choice.ok ? undefined : { ok: false, code: 'model_not_allowed', rule: choice.rule, message: choice.message };
}

/** What a steer, stop or read reaches. */
export interface Subject {
  kind: 'run' | 'unit' | 'plan' | 'thread';
  id: string;
  /** Who asked for it (its `Requester`); absent: unknown, and only an operator may touch it. */
  requester?: string;
  /** The agent it runs (a unit and a plan run `ship`). */
  agent?: string;
  /** The repository it works on (a GitHub owner's role is checked there). */
  repo?: string;
}

export type ControlAction = 'read' | 'steer' | 'stop';

export type ControlAdmission = { ok: true; as: 'requester' | 'operator' | 'owner' } | AdmissionRefusal;

/** Whether this person is an operator: the CLI, an admin token, or named in `admission.operators`. */
export function isOperator(facts: Pick<AdmissionFacts, 'admission'>, person: Person): boolean {
  if (person.operator || person.surface === 'cli') return true;
  return person.userId !== undefined && (facts.admission ?? DEFAULT_ADMISSION).operators.includes(person.userId);
}

/**
 * Whether `person` may read, steer or stop `subject`.
 * - read: its requester, or an operator.
 * - stop: its requester, an operator, or on GitHub an owner (below).
 * - steer: its requester, an operator, or an owner by the conversation's surface — on GitHub,
 *   an actor whose role on the repository admits them to the subject's agent (the PR or issue
 *   conversation belongs to the repository's collaborators, who may also stop its work: unassign
 *   the issue, remove its label, `@switchboard stop`); in Slack, nobody beyond the requester —
 *   and, outside the CLI, the person must be admitted for the subject's agent now.
 */
export function admitControl(facts: AdmissionFacts, person: Person, subject: Subject, action: ControlAction): ControlAdmission {
  const definition = subject.agent ? getAgent(facts.catalog, subject.agent) : undefined;
  const operator = isOperator(facts, person);
  const requester = subject.requester !== undefined && subject.requester === person.userId;
  const owner =
    action !== 'read' &&
    person.surface === 'github' &&
    definition !== undefined &&
    person.githubRole !== undefined &&
    roleAtLeast(person.githubRole, githubRequirement(facts.admission, subject.repo, definition).role);
  const as = requester ? 'requester' : operator ? 'operator' : owner ? 'owner' : undefined;
  if (!as) {
    const who =
      action === 'read'
        ? 'the person who asked for it or an operator'
        : person.surface === 'github'
          ? `the person who asked for it, an operator, or a collaborator whose role on ${subject.repo ?? 'the repository'} admits them to ${subject.agent ?? 'it'}`
          : action === 'steer'
            ? 'the person who asked for it'
            : 'the person who asked for it or an operator';
    const verb = action === 'read' ? 'read' : action;
    return {
      ok: false,
      code: 'not_requester',
      rule: action === 'stop' ? 'admission.operators' : `${subject.kind} requester`,
      message: `This ${subject.kind} belongs to someone else: only ${who} may ${verb} it, so nothing was sent to it.`,
    };
  }
  if (action !== 'steer' || person.surface === 'cli' || !subject.agent) return { ok: true, as };
  // Who may use the agent decides a steer (access, and on GitHub the actor's role); the deployment's state does not.
  const access = authorize(facts.catalog, facts.config, person, subject.agent);
  const refused = access.ok
    ? githubActorCheck(facts, { person, agent: subject.agent, ...(subject.repo ? { repo: subject.repo } : {}) }, access.agent)
    : access;
  if (refused) return { ok: false, ...refused, message: `You may not steer this ${subject.agent} ${subject.kind}: ${refused.message}` };
  return { ok: true, as };
}

/**
 * Where the orchestrator's unit tools work: in the person's own private Slack DM (the spec's
 * "verified private DM"), or for an operator at the command line. Anywhere else (a channel
 * thread, the API) they are refused, whoever asks.
 */
export function unitToolsRefusal(person: Person, conversation: Conversation): AdmissionRefusal | undefined {
  if (person.surface === 'cli' && conversation.kind === 'cli') return undefined;
  if (person.surface === 'slack' && conversation.kind === 'slack' && conversation.privateDm) return undefined;
  return {
    ok: false,
    code: 'unit_tools_private',
    rule: 'orchestrator unit tools: private DM only',
    message:
      "Ship units are started, steered and stopped from the person's own private DM with Switchboard (or the CLI), " +
      'not from here; nothing was done. Ask in a DM, or use agent:ship here.',
  };
}

/** What a person does to a board: read it, add an entry, keep or retire one, or ask rem-agent to consolidate their work. */
export type BoardAction = 'read' | 'add' | 'keep' | 'retire' | 'consolidate';

/** The board a change reaches, with the policy its settings make (agents/board.ts `boardPolicy`). */
export interface BoardSubject {
  boardId: string;
  repo?: string;
  policy: BoardPolicy;
}

/** Admitted: whether what this person adds (or the consolidation of their work) is kept at once, and as whom. */
export type BoardAdmission = { ok: true; keeps: boolean; as: 'operator' | 'keeper' | 'member' } | AdmissionRefusal;

/** A keeper of the board: named in `board.keepers.people`, or on GitHub a collaborator with at least `board.keepers.role`. */
export function isBoardKeeper(person: Person, policy: BoardPolicy): boolean {
  if (person.userId !== undefined && policy.keepers.people.includes(person.userId)) return true;
  return person.surface === 'github' && person.githubRole !== undefined && roleAtLeast(person.githubRole, policy.keepers.role);
}

/**
 * Whether `person` may do `action` on a board (every door asks this: the thread's `/board` and
 * `/subconscious run`, the CLI, and a board itself before it starts rem-agent). An operator always
 * may. A board that is off answers nobody else. Anyone the deployment admits may read a board
 * and add to it, but what a non-keeper adds — and what rem-agent takes from a non-keeper's work —
 * stays `proposed`; only a keeper (or an operator) keeps or retires an entry. A self-serve token
 * only reads.
 */
export function admitBoard(
  facts: Pick<AdmissionFacts, 'admission'>,
  person: Person,
  subject: BoardSubject,
  action: BoardAction,
): BoardAdmission {
  const { policy } = subject;
  if (isOperator(facts, person)) return { ok: true, keeps: true, as: 'operator' };
  const where = subject.repo ?? subject.boardId;
  if (!policy.enabled)
    return {
      ok: false,
      code: 'board_off',
      rule: `${policy.rule}.enabled`,
      message: `The team board of ${where} is off (${policy.rule}.enabled), so nothing was done. An operator can still change it with switchboard board.`,
    };
  if (action !== 'read' && person.selfServe)
    return {
      ok: false,
      code: 'self_serve_excluded',
      rule: 'self-serve tokens',
      message: `A self-serve token reads the team board of ${where} but does not change it, so nothing was done.`,
    };
  const keeper = isBoardKeeper(person, policy);
  if ((action === 'keep' || action === 'retire') && !keeper) {
    const who = [
      ...(person.surface === 'github' || subject.repo ? [`a collaborator with the ${policy.keepers.role} role on ${where}`] : []),
      ...(policy.keepers.people.length ? [`the people ${policy.rule}.keepers.people names`] : []),
      'an operator',
    ];
    return {
      ok: false,
      code: 'board_keeper',
      rule: `${policy.rule}.keepers`,
      message: `Only a keeper of the team board of ${where} may ${action} an entry (${who.join(', ')}), so nothing was changed.`,
    };
  }
  return { ok: true, keeps: keeper, as: keeper ? 'keeper' : 'member' };
}
