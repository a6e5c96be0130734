import type { AgentSetup } from '../../activities/agents/agent-setup';
import type { Profile } from '../contracts/profile';
import {
  admitStart,
  buildSystemPrompt,
  channelBoard,
  parseCommand,
  parseDirectives,
  researchRequest,
  reviewRequest,
  resolveProfile,
  route,
  usableAgents,
  type ClassifierAnswer,
  type Conversation,
  type Person,
  type RouteDecision,
  type SlashCommand,
  type StartRequest,
} from '../../agents';
import type { ReplyTarget, RunBoardRef, RunRouting, ThreadMessage } from '../contracts';

/** Every decision says how the message was routed (the thread asks a classifier when no rule placed it). */
interface Routed {
  route?: RouteDecision;
}

/** A slash command the thread answers itself, without a run of its own: the team board's (workflows/thread/board-command.ts). */
export type BoardCommand = Extract<SlashCommand, { kind: 'board' | 'subconscious' }>;

export type Decision =
  | ({
      kind: 'run';
      agent: string;
      profile: Profile;
      system: string;
      request: string;
      stickyAgent?: string;
      routing?: RunRouting;
      /** A Slack channel's team board, for a run there on no repository (a repository's is found by the run). */
      board?: RunBoardRef;
    } & Routed)
  | ({ kind: 'board'; command: BoardCommand; stickyAgent?: string } & Routed)
  | ({ kind: 'ship'; profile: Profile; request: string; stickyAgent?: string } & Routed)
  | ({ kind: 'refused'; reply: string; code: string; stickyAgent?: string } & Routed);

/** How a thread routes (both set by `patched()` in the thread: replayed histories route as they were recorded). */
export interface RoutingOptions {
  /** The rules that find review, explore and research, over routable agents only. */
  rules?: boolean;
  /** A classifier's answer for a message no rule placed. */
  classified?: ClassifierAnswer;
  /** Slash commands (/review, /research, /subconscious run, /board) are read (agents/commands.ts). */
  commands?: boolean;
}

/** The person a thread message speaks for, as the admission sees them. */
export function personOf(message: ThreadMessage): Person {
  const { requester } = message;
  return {
    surface: requester.surface,
    userId: requester.id,
    ...(message.channelId ? { channelId: message.channelId } : {}),
    ...(message.selfServe || requester.selfServe ? { selfServe: true } : {}),
    ...(requester.grant ? { grant: requester.grant } : {}),
    ...(requester.githubRole ? { githubRole: requester.githubRole } : {}),
  };
}

/** Where a message came from, as the admission sees it: a GitHub PR or plain issue, Slack, the API or the CLI. */
export function conversationOf(target: ReplyTarget): Conversation {
  // Slack's one-to-one DM channels are the ones whose id starts with D (the Slack door starts a DM thread only from `im`).
  if (target.kind === 'slack') return { kind: 'slack', ...(/^D[A-Z0-9]+$/.test(target.channel) ? { privateDm: true } : {}) };
  if (target.kind !== 'github') return { kind: target.kind };
  return { kind: 'github', repo: target.repo, ...(target.issue ? { issue: true } : {}) };
}

/**
 * What a message asks for, decided with the pure agents layer: directives, routing (with the
 * thread's sticky agent), the one admission (agents/admission.ts: access, a GitHub actor's
 * role, the model, the request, the sandbox, a pull request where one is needed), and the
 * resolved profile and prompt. A refusal is a plain answer that names the rule, with its
 * stable code. Tools whose backend the deployment lacks (or that cannot reach `replyTarget`)
 * are left out of the profile. `skip` names rules a replayed history was decided without.
 */
export function decide(
  setup: AgentSetup,
  message: ThreadMessage,
  stickyAgent: string | undefined,
  replyTarget?: ReplyTarget,
  skip: StartRequest['skip'] = [],
  routing: RoutingOptions = {},
): Decision {
  const { catalog, config } = setup;
  const parsed = parseDirectives(message.text);
  // A slash command: the board's are the thread's to answer; /review and /research name their agent and request.
  const command = routing.commands ? parseCommand(parsed.text) : undefined;
  const kept = stickyAgent ? { stickyAgent } : {};
  if (command?.kind === 'invalid') return { kind: 'refused', reply: command.reply, code: 'command_unknown', ...kept };
  if (command?.kind === 'board' || command?.kind === 'subconscious') return { kind: 'board', command, ...kept };
  if (command) {
    const on = replyTarget ?? message.replyTarget;
    const where = on?.kind === 'github' && !on.issue ? { repo: on.repo, pullRequest: on.pullRequest } : {};
    parsed.directives.agent = command.kind === 'review' ? 'code-review' : 'conductor';
    parsed.text = command.kind === 'review' ? reviewRequest(command.text, where) : researchRequest(command.text);
  }
  const person = personOf(message);
  const available = usableAgents(catalog, config, person);
  const implied = stickyAgent ?? (message.defaultAgent && available.includes(message.defaultAgent) ? message.defaultAgent : undefined);
  const target = replyTarget ?? message.replyTarget;
  const routed = route({
    directives: parsed.directives,
    text: parsed.text,
    ...(implied ? { stickyAgent: implied } : {}),
    available,
    ...(routing.rules
      ? {
          routable: catalog.agents.filter((agent) => agent.routable).map((agent) => agent.id),
          ...(target ? { conversation: routeConversation(target) } : {}),
          ...(routing.classified ? { classified: routing.classified } : {}),
        }
      : {}),
  });
  const repo = parsed.directives.repo ?? (message.channelId ? config.channels[message.channelId]?.defaultRepo : undefined);
  const admitted = admitStart(setup, {
    person,
    agent: routed.agent,
    text: parsed.text,
    ...(parsed.directives.model !== undefined ? { model: parsed.directives.model } : {}),
    ...(repo ? { repo } : {}),
    ...(target ? { conversation: conversationOf(target) } : {}),
    skip,
  });
  if (!admitted.ok) {
    // A message that only names an agent keeps it (and asks what to do); any other refusal changes nothing in the thread.
    const sticky = admitted.code === 'request_missing' ? (routed.stickyAgent ?? stickyAgent) : stickyAgent;
    return { kind: 'refused', reply: admitted.message, code: admitted.code, ...(sticky ? { stickyAgent: sticky } : {}), route: routed };
  }
  const profile = resolveProfile({
    agent: admitted.agent,
    config,
    directives: parsed.directives,
    ignoredDirectives: parsed.ignored,
    ...(message.channelId ? { channelId: message.channelId } : {}),
    userId: message.requester.id,
    // A setup recorded before backends were reported (replayed histories) filters nothing.
    ...(setup.backends
      ? { tooling: { backends: setup.backends, conversation: (replyTarget ?? message.replyTarget ?? { kind: 'api' }).kind } }
      : {}),
    ...(admitted.mcp ? { mcp: admitted.mcp } : {}),
  });
  // A command runs its agent once; the thread's own agent stays as it was.
  const sticky = command ? kept : routed.stickyAgent ? { stickyAgent: routed.stickyAgent } : {};
  const channel = target?.kind === 'slack' && !profile.repo ? channelBoard(setup.channelBoards, target.team, target.channel) : undefined;
  if (profile.pipeline === 'ship') return { kind: 'ship', profile, request: parsed.text, ...sticky, route: routed };
  // A routed run (not chosen by name) shows on its card which agent the router picked and why.
  const routedBy = routing.rules && routed.reason !== 'directive' && routed.reason !== 'sticky';
  return {
    kind: 'run',
    agent: admitted.agent.id,
    profile,
    system: buildSystemPrompt(admitted.agent, profile),
    request: parsed.text,
    ...sticky,
    route: routed,
    ...(routedBy ? { routing: { agent: routed.agent, reason: routed.reason, ...(routed.note ? { note: routed.note } : {}) } } : {}),
    ...(channel?.enabled ? { board: { id: channel.boardId, maxPromptChars: channel.maxPromptChars } } : {}),
  };
}

/** Where a message came from, as routing sees it: a review request on a pull request goes to review. */
function routeConversation(target: ReplyTarget): { kind: ReplyTarget['kind']; pullRequest?: boolean } {
  if (target.kind !== 'github') return { kind: target.kind };
  return { kind: 'github', ...(target.issue ? {} : { pullRequest: true }) };
}
