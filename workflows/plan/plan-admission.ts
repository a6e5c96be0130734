import type { AgentSetup } from '../../activities/agents/agent-setup';
import { admitStart } from '../../agents';
import type { PlanInput } from '../contracts';

/** Why the plan's requester may not have its units started (agents/admission.ts), or undefined. */
export function planRefusal(loaded: AgentSetup, input: PlanInput) {
  const { id, surface, selfServe, grant, githubRole } = input.requester;
  const person = {
    surface,
    userId: id,
    ...(selfServe ? { selfServe } : {}),
    ...(grant ? { grant } : {}),
    ...(githubRole ? { githubRole } : {}),
  };
  const allowed = admitStart(loaded, { person, agent: 'ship', repo: input.repo, ...(input.model ? { model: input.model } : {}) });
  return allowed.ok ? undefined : allowed;
}
