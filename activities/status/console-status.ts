import { type Logger } from '../../infra/logger';
import type { EffectResult, PlanCardInput, ReplyInput, StatusCardInput } from '../../workflows/contracts/status';

export interface ConsoleStatusDeps {
  logger: Logger;
}

/**
 * The status card and replies for targets without a chat surface (CLI, HTTP API) and
 * until a Slack implementation is configured: each update is a structured log line. The
 * CLI and API read the live state from the run's `status` query instead. Nothing here is
 * ever `confirmed`, because nothing is sent: an API target is `recorded` (its caller reads the
 * durable record), every other target `logged`, with the reason.
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
          ...(status.routing ? { routing: status.routing } : {}),
        },
        input.final ? `run ${input.runId} ${status.outcome ?? 'finished'}` : `run ${input.runId}: ${status.statusText ?? status.phase}`,
      );
      return resultFor(input.replyTarget);
    },
    async deliverReply(input: ReplyInput): Promise<EffectResult> {
      deps.logger.info({ effectKey: input.effectKey, target: input.replyTarget.kind }, input.text);
      return resultFor(input.replyTarget);
    },
    async planCard(input: PlanCardInput): Promise<EffectResult> {
      deps.logger.info({ planId: input.planId, target: input.replyTarget.kind }, input.text);
      return resultFor(input.replyTarget);
    },
  };
}

function resultFor(target: StatusCardInput['replyTarget']): EffectResult {
  if (target.kind === 'api') return API_RECORDED;
  if (target.kind === 'cli') return { status: 'logged', reason: "a CLI target is sent nothing: the CLI reads the run's status and record" };
  const setting =
    target.kind === 'slack' ? 'slack.botToken (SLACK_BOT_TOKEN)' : 'a GitHub write identity (GITHUB_WRITE_TOKEN or github.app)';
  return { status: 'logged', reason: `no ${target.kind} delivery is configured (${setting}): written to the worker's log only` };
}

const API_RECORDED: EffectResult = {
  status: 'recorded',
  reason: "an API target is sent nothing: the run's record and the thread's outcomes are the report (GET /api/v1/jobs/{id})",
};
