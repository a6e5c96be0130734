import { condition, getExternalWorkflowHandle, patched, workflowInfo } from '@temporalio/workflow';
import type { AgentSetup } from '../../activities/agents/agent-setup';
import type { GitHubActivities } from '../../activities/github';
import {
  boards,
  githubToolReads,
  githubWrites,
  localSetup,
  repoReads,
  repoVetting,
  routingModels,
  setup,
  status as rawStatus,
  type StatusActivities,
} from '../activity-proxies';
import {
  steerSignal,
  stopSignal,
  type SteerInput,
  type StopInput,
  type ThreadInput,
  type ThreadMessage,
  type UncertainWrite,
} from '../contracts';
import { UncertainWrites } from '../effects/uncertain-writes';
import { releaseSpend } from '../spend/release';
import type { BoardCommandContext } from './board-command';
import { classify } from './classify';
import { answerPlan } from './plan-ask';
import type { RunEnds } from './run-ends';
import { startRun } from './run-start';
import { startShipUnit } from './ship-unit-start';
import { threadSpend } from './spend';
import type { ThreadMemory } from './thread-memory';

/** The `patched()` id of saying "could not confirm delivery of …" after an unconfirmed reply (docs/versioning.md). */
export const UNCERTAIN_REPLY_NOTICE = 'uncertain-reply-notice';

/**
 * Everything the thread's classes do to the world: Temporal's calls (patches, waits, signals to
 * its run) and the activities it schedules. The workflow hands in `threadEffects`; unit tests
 * hand in fakes (thread-test-world.ts), so the classes are driven without a server.
 */
export interface ThreadEffects {
  patched: (id: string) => boolean;
  now(): number;
  condition(test: () => boolean): Promise<void>;
  /** The Temporal namespace, for the Web UI's links. */
  namespace(): string;
  /** The thread's unconfirmed writes: its replies are listed there, and a run's join them at its end. */
  uncertain: UncertainWrites;
  /** Replies, each listed in `uncertain` when its delivery could not be confirmed. */
  status: Pick<StatusActivities, 'deliverReply'>;
  /** Replies said once per key whoever says them (a broken settings file's notice), not listed. */
  notice: Pick<StatusActivities, 'deliverReply'>;
  steer(runId: string, steer: SteerInput): Promise<void>;
  stop(runId: string, stop: StopInput): Promise<void>;
  github: Pick<GitHubActivities, 'githubIssueThread' | 'repoSettings' | 'vetRepository'>;
  /** The agent setup: as a local activity (`local`), or as an activity as histories recorded before. */
  loadSetup(local: boolean): Promise<AgentSetup>;
  plan: typeof answerPlan;
  classify(setup: AgentSetup, message: ThreadMessage, threadId: string): ReturnType<typeof classify>;
  spend: typeof threadSpend;
  startShipUnit: typeof startShipUnit;
  boards: BoardCommandContext['activities'];
  startRun: typeof startRun;
  releaseSpend: typeof releaseSpend;
}

/** What a thread's parts share: its input, what it keeps, what it does to the world, and its run's end and details. */
export interface ThreadContext {
  input: ThreadInput;
  memory: ThreadMemory;
  effects: ThreadEffects;
  /** The current run's end, as the run tells it (`runEnded`). */
  ends: RunEnds;
  /** Shows the thread's current details in the Web UI. */
  show(): void;
}

/** The thread's effects in the workflow: Temporal's own calls and the activity proxies. */
export function threadEffects(threadId: string, uncertainList: UncertainWrite[]): ThreadEffects {
  const uncertain = new UncertainWrites(
    uncertainList,
    { githubWrites, status: rawStatus },
    {
      now: () => Date.now(),
      workflowId: threadId,
      // Said in the same conversation, once more; histories recorded before this say nothing (docs/versioning.md).
      notify: async (write, text) => {
        if (write.call.activity === 'deliverReply' && patched(UNCERTAIN_REPLY_NOTICE))
          await rawStatus.deliverReply({ effectKey: `${write.effectKey}/notice`, replyTarget: write.call.input.replyTarget, text });
      },
    },
  );
  return {
    patched: (id) => patched(id),
    now: () => Date.now(),
    condition: (test) => condition(test),
    namespace: () => workflowInfo().namespace,
    uncertain,
    status: uncertain.recording().status,
    notice: rawStatus,
    steer: (runId, steer) => getExternalWorkflowHandle(runId).signal(steerSignal, steer),
    stop: (runId, stop) => getExternalWorkflowHandle(runId).signal(stopSignal, stop),
    github: {
      githubIssueThread: (input) => githubToolReads.githubIssueThread(input),
      repoSettings: (input) => repoReads.repoSettings(input),
      vetRepository: (input) => repoVetting.vetRepository(input),
    },
    loadSetup: (local) => (local ? localSetup.loadAgentSetup() : setup.loadAgentSetup()),
    plan: answerPlan,
    classify: (agentSetup, message, id) => classify(agentSetup, message, routingModels, id),
    spend: threadSpend,
    startShipUnit,
    boards,
    startRun,
    releaseSpend,
  };
}
