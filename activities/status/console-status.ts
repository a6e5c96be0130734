import { type Logger } from '../../infra/logger';
import { type EffectResult, type ReplyInput, type StatusCardInput } from './types';

export interface ConsoleStatusDeps {
  logger: Logger;
}

/**
 * The status card and replies for targets without a chat surface (CLI, HTTP API) and
 * until a Slack implementation is configured: each update is a structured log line. The
 * CLI and API read the live state from the run's `status` query instead. An API target is
 * never answered `confirmed`: nothing is sent to it, its caller reads the durable record.
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
      return input.replyTarget.kind === 'api' ? API_RECORDED : { status: 'confirmed' };
    },
    async deliverReply(input: ReplyInput): Promise<EffectResult> {
      deps.logger.info({ effectKey: input.effectKey, target: input.replyTarget.kind }, input.text);
      return input.replyTarget.kind === 'api' ? API_RECORDED : { status: 'confirmed' };
    },
  };
}

const API_RECORDED: EffectResult = {
  status: 'recorded',
  reason: "an API target is sent nothing: the run's record and the thread's outcomes are the report (GET /api/v1/jobs/{id})",
};
