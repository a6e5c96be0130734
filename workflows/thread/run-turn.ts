import { consolidateRun } from './board-command';
import { boardAt } from './board-context';
import type { Decided } from './message-decider';
import { draftedPlan } from './plan-ask';
import { runAnswer } from './run-answer';
import { savedOutcome, type EndedRun } from './run-ends';
import { currentRunOf, runLaunch, type RunDecision } from './run-launch';
import { EAGER_RUN_START } from './run-start';
import type { ThreadContext } from './thread-effects';

/**
 * One run of the thread, from its start to its answer: started (by a local activity, or as a
 * child as recorded before), followed to its end, and then settled — the spend it held released,
 * its workspace's host, unconfirmed writes, review and drafted plan kept, the board asked to
 * consolidate it, the exchange saved for follow-ups, and its answer given in the conversation.
 */
export class RunTurn {
  constructor(private readonly ctx: ThreadContext) {}

  async run(decided: Decided & { decision: RunDecision }): Promise<void> {
    const { memory, effects, input, ends } = this.ctx;
    const { message, decision, replyTarget } = decided;
    memory.runCount += 1;
    const runId = `run:${memory.threadId}:${memory.runCount}`;
    memory.currentRunId = runId;
    memory.currentRun = currentRunOf(message, decision, replyTarget);
    this.ctx.show();
    const started = await effects.startRun(
      runLaunch(runId, decided, memory, effects.namespace()),
      // Started by a local activity with eager workflow start, its end told by signal; threads recorded before started a child.
      { eager: effects.patched(EAGER_RUN_START), ends, runWatch: input.runWatch },
    );
    // Told once the run exists, so a caller that follows it (the CLI, the API) never finds no run.
    memory.remember({ messageId: message.messageId, kind: 'run', runId, agent: decision.agent });
    if (memory.pendingStop) await started.stop(memory.pendingStop);
    await this.settle(decided, runId, await started.ended());
  }

  private async settle(decided: Decided & { decision: RunDecision }, runId: string, ended: EndedRun): Promise<void> {
    const { memory, effects } = this.ctx;
    const { message, decision, replyTarget, setup, repo, spend } = decided;
    const { threadId } = memory;
    const record = ended.record;
    if (spend.holder) await effects.releaseSpend({ holder: runId, ...(record?.cost ? { spentUsd: record.cost.usd } : {}), by: threadId });
    memory.currentRunId = undefined;
    memory.currentRun = undefined;
    memory.pendingStop = undefined;
    if (record?.workspaceHost) memory.workspaceHost = record.workspaceHost;
    // The run's own unconfirmed writes (its tools', its card's) are listed here, where `resend` repairs them.
    effects.uncertain.adopt(record?.unconfirmed);
    memory.reviews.record(record);
    await consolidateRun(record, boardAt(setup, threadId, effects.status, effects.boards, { message, replyTarget, repo }), effects.patched);
    memory.planDraft = draftedPlan(record) ?? memory.planDraft;
    const answer = runAnswer(record, ended, replyTarget);
    memory.save({ request: decision.request, answer, agent: decision.agent, outcome: savedOutcome(ended) });
    // An automatic review that posted its review has said everything there (its card says it ended).
    if (!(message.review && record?.reviewed?.status === 'confirmed'))
      await effects.status.deliverReply({ effectKey: `${runId}/answer`, replyTarget, text: answer });
  }
}
