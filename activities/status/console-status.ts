import { type Logger } from '../../infra/logger';
import { type EffectResult, type ReplyInput, type StatusCardInput } from './types';

export interface ConsoleStatusDeps {
  logger: Logger;
}

/**
 * The status card and replies for targets without a chat surface (CLI, HTTP API) and
 * until a Slack implementation is configured: each update is a structured log line. The
 * CLI and API read the live state from the run's `status` query instead.
 */
export function createConsoleStatusActivities(deps: ConsoleStatusDeps) {
  return {
    async statusCard(input: StatusCardInput): Promise<EffectResult> {
      const { status } = input;
      deps.logger.info(
        {
          runId: input.runId,
          phase: status.phase,
          turns: status.turns,
          statusText: status.statusText,
          outcome: status.outcome,
          final: input.final,
        },
        input.final ? `run ${input.runId} ${status.outcome ?? 'finished'}` : `run ${input.runId}: ${status.statusText ?? status.phase}`,
      );
      return { status: 'confirmed' };
    },
    async deliverReply(input: ReplyInput): Promise<EffectResult> {
      deps.logger.info({ effectKey: input.effectKey, target: input.replyTarget.kind }, input.text);
      return { status: 'confirmed' };
    },
  };
}
