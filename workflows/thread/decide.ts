import type { AgentSetup } from '../../activities/agents/agent-setup';
import {
  allowedModels,
  authorize,
  buildSystemPrompt,
  checkModelChoice,
  parseDirectives,
  reachesShell,
  resolveProfile,
  route,
  usableAgents,
  type Profile,
} from '../../agents';
import type { ReplyTarget, ThreadMessage } from '../contracts';

export type Decision =
  | { kind: 'run'; agent: string; profile: Profile; system: string; request: string; stickyAgent?: string }
  | { kind: 'ship'; profile: Profile; request: string; stickyAgent?: string }
  | { kind: 'refused'; reply: string; code: string; stickyAgent?: string };

/**
 * What a message asks for, decided with the pure agents layer: directives, routing (with
 * the thread's sticky agent), access, and the resolved profile and prompt. A refusal is a
 * plain answer that names the rule and what the person may use instead. Tools whose backend
 * the deployment lacks (or that cannot reach `replyTarget`) are left out of the profile.
 */
export function decide(setup: AgentSetup, message: ThreadMessage, stickyAgent: string | undefined, replyTarget?: ReplyTarget): Decision {
  const { catalog, config } = setup;
  const parsed = parseDirectives(message.text);
  const requester = {
    surface: message.requester.surface,
    userId: message.requester.id,
    ...(message.channelId ? { channelId: message.channelId } : {}),
    ...(message.selfServe || message.requester.selfServe ? { selfServe: true } : {}),
    ...(message.requester.grant ? { grant: message.requester.grant } : {}),
  };
  const available = usableAgents(catalog, config, requester);
  const implied = stickyAgent ?? (message.defaultAgent && available.includes(message.defaultAgent) ? message.defaultAgent : undefined);
  const routed = route({ directives: parsed.directives, text: parsed.text, ...(implied ? { stickyAgent: implied } : {}), available });
  const allowed = authorize(catalog, config, requester, routed.agent);
  if (!allowed.ok) {
    // A refused explicit choice does not stick; the thread keeps what it had.
    return { kind: 'refused', reply: allowed.message, code: allowed.code, ...(stickyAgent ? { stickyAgent } : {}) };
  }
  if (parsed.directives.model !== undefined) {
    const allowedList = allowedModels(catalog, config, setup.allowedModels);
    const choice = checkModelChoice({ model: parsed.directives.model, surface: requester.surface, allowed: allowedList });
    // Like a refused agent, a refused model changes nothing in the thread.
    if (!choice.ok) return { kind: 'refused', reply: choice.message, code: 'model_not_allowed', ...(stickyAgent ? { stickyAgent } : {}) };
  }
  if (!parsed.text) {
    const sticky = routed.stickyAgent ?? stickyAgent;
    return {
      kind: 'refused',
      reply: `Noted: this thread now uses ${allowed.agent.displayName}. What should it do?`,
      code: 'request_missing',
      ...(sticky ? { stickyAgent: sticky } : {}),
    };
  }
  if (setup.sandbox && !setup.sandbox.ready && reachesShell(allowed.agent)) {
    // Fail closed: a shell this worker cannot isolate is never started, and the person is told why.
    return {
      kind: 'refused',
      reply:
        `${allowed.agent.displayName} needs a sandboxed shell, and this Switchboard cannot isolate shell commands right now ` +
        `(${setup.sandbox.reason}), so nothing was run. An operator can fix it: ${setup.sandbox.fix}.`,
      code: 'sandbox_unavailable',
      ...(stickyAgent ? { stickyAgent } : {}),
    };
  }
  const profile = resolveProfile({
    agent: allowed.agent,
    config,
    directives: parsed.directives,
    ignoredDirectives: parsed.ignored,
    ...(message.channelId ? { channelId: message.channelId } : {}),
    userId: message.requester.id,
    // A setup recorded before backends were reported (replayed histories) filters nothing.
    ...(setup.backends
      ? { tooling: { backends: setup.backends, conversation: (replyTarget ?? message.replyTarget ?? { kind: 'api' }).kind } }
      : {}),
  });
  const sticky = routed.stickyAgent ? { stickyAgent: routed.stickyAgent } : {};
  if (profile.pipeline === 'ship') return { kind: 'ship', profile, request: parsed.text, ...sticky };
  return {
    kind: 'run',
    agent: allowed.agent.id,
    profile,
    system: buildSystemPrompt(allowed.agent, profile),
    request: parsed.text,
    ...sticky,
  };
}
