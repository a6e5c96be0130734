import { isCancellation } from '@temporalio/workflow';
import type { AgentSetup } from '../../activities/agents/agent-setup';
import {
  classifierCandidates,
  classifierPrompt,
  parseDirectives,
  readClassifierAnswer,
  usableAgents,
  type ClassifierAnswer,
} from '../../agents';
import type { ModelActivities } from '../activity-proxies';
import type { ThreadMessage, TurnUsage } from '../contracts';
import { turnUsage } from '../run/run-state';
import { personOf } from './decide';

/** The classifier's output cap: one line of JSON. */
export const CLASSIFIER_MAX_TOKENS = 300;

/** Whether the deployment asks a model to route what no rule placed (`agents.routing.classifier.enabled`; off by default). */
export function classifierOn(setup: AgentSetup): boolean {
  // Setups recorded before routing existed carry no routing section.
  return setup.config.routing?.classifier?.enabled === true;
}

/**
 * The classifier seam (agents/routing.ts), backed by one cheap model turn (`purpose: routing`):
 * the catalog's descriptions of the routable agents this person may use, and the message. Its
 * answer is read, never trusted (a name outside the candidates is no answer); the turn's usage is
 * returned either way, so the run it starts counts it. A failed turn routes by default.
 */
export async function classify(
  setup: AgentSetup,
  message: ThreadMessage,
  models: ModelActivities,
  threadId: string,
): Promise<{ answer?: ClassifierAnswer; usage?: TurnUsage }> {
  const available = usableAgents(setup.catalog, setup.config, personOf(message));
  const candidates = classifierCandidates(setup.catalog.agents, available);
  // One candidate (or none) leaves nothing to choose.
  if (candidates.length < 2) return {};
  const prompt = classifierPrompt({ text: parseDirectives(message.text).text, candidates });
  try {
    const result = await models.modelTurn({
      model: setup.config.routing?.classifier?.model ?? setup.config.defaults.model,
      system: prompt.system,
      messages: [{ role: 'user', text: prompt.message }],
      tools: [],
      maxTokens: CLASSIFIER_MAX_TOKENS,
      runId: threadId,
      turn: 0,
      purpose: 'routing',
    });
    const answer = readClassifierAnswer(result.text, candidates);
    return { ...(answer ? { answer } : {}), usage: turnUsage(result, 0, 'routing') };
  } catch (error) {
    if (isCancellation(error)) throw error;
    return {};
  }
}
