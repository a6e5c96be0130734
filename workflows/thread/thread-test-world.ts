import { DEFAULT_SHIP_SETTINGS, type AgentSetup } from '../../activities/agents/agent-setup';
import type { RepoSettingsResult } from '../../activities/github';
import type { IssueThread, VetRepositoryResult } from '../contracts/github';
import type { EffectResult } from '../contracts/status';
import { builtinCatalog } from '../../agents';
import { defaultAgentsConfig } from '../../agents/config';
import type { ReplyTarget, RunRecord, ThreadCarry, ThreadInput, ThreadMessage, UncertainWrite } from '../contracts';
import { UncertainWrites } from '../effects/uncertain-writes';
import { CallLog } from '../test-support';
import type { EndedRun } from './run-ends';
import { RunEnds } from './run-ends';
import type { RunLaunch } from './run-start';
import type { ThreadSpend } from './spend';
import type { ThreadContext, ThreadEffects } from './thread-effects';
import { ThreadMemory } from './thread-memory';

/** A thread's parts over fakes, for their unit tests (test-only: no workflow imports it). */
export const THREAD = 'thread:slack:T1:C1:1.0';
export const SLACK: ReplyTarget = { kind: 'slack', team: 'T1', channel: 'C1', threadTs: '1.0' };

export function agentSetup(config: Parameters<typeof defaultAgentsConfig>[0] = {}): AgentSetup {
  return { catalog: builtinCatalog(), config: defaultAgentsConfig(config), ship: DEFAULT_SHIP_SETTINGS };
}

export function message(text: string, extra: Partial<ThreadMessage> = {}): ThreadMessage {
  return { messageId: 'm1', text, requester: { id: 'ada', surface: 'slack' }, channelId: 'C1', ...extra };
}

/** A finished run's record, as the run would write it. */
export function runRecord(extra: Partial<RunRecord> = {}): RunRecord {
  return { runId: 'run:x', outcome: 'completed', finalText: 'Done.', submissions: {}, toolCalls: [], ...extra } as RunRecord;
}

/** A reply whose delivery could not be confirmed, as the unconfirmed-write list holds it. */
export function unconfirmedReply(effectKey: string, text = 'Done.'): UncertainWrite {
  return {
    kind: 'reply',
    effectKey,
    target: 'slack C1/1.0',
    text,
    reason: 'Slack did not answer',
    at: 0,
    call: { activity: 'deliverReply', input: { effectKey, replyTarget: SLACK, text } },
  };
}

export interface ThreadWorld extends ThreadContext {
  log: CallLog;
  /** The `patched()` ids asked, in order. */
  patches: string[];
  /** The runs started: their launch and whether eagerly. */
  launches: Array<{ launch: RunLaunch; eager: boolean; currentRunId?: string }>;
  /** Times the details were shown. */
  shown: number;
  /** Re-checks the waits (`condition`) after the test changed what they wait for. */
  wake(): void;
}

/**
 * A thread over fakes: `off` lists the patches an old history lacks (every other is on); the
 * activities answer from the options, and each call is logged by name with its input.
 */
export function threadWorld(
  options: {
    carry?: ThreadCarry;
    off?: string[];
    setup?: AgentSetup;
    settings?: RepoSettingsResult;
    issue?: IssueThread;
    vet?: VetRepositoryResult;
    spend?: (spend: ThreadSpend) => ThreadSpend;
    ended?: EndedRun;
    reply?: Partial<EffectResult>;
    boardFails?: string;
    runWatch?: ThreadInput['runWatch'];
  } = {},
): ThreadWorld {
  const log = new CallLog();
  const memory = new ThreadMemory(THREAD, options.carry);
  const patches: string[] = [];
  const waits: Array<{ test: () => boolean; resolve: () => void }> = [];
  const reply = (): EffectResult => ({ status: 'confirmed', ...options.reply });
  const deliverReply = log.fn('deliverReply', reply);
  const statusCard = log.fn('statusCard', reply);
  const failing = (name: string) => log.fn(name, () => Promise.reject(new Error(name)));
  const uncertain = new UncertainWrites(
    memory.uncertain,
    {
      githubWrites: {
        postComment: failing('postComment'),
        postReview: failing('postReview'),
        openOrUpdatePullRequest: failing('openOrUpdatePullRequest'),
        createIssue: failing('createIssue'),
        replyToReviewComment: failing('replyToReviewComment'),
      },
      status: { deliverReply, statusCard },
    },
    { now: () => 0, workflowId: THREAD },
  );
  const failsOr = <T>(answer: T) => (options.boardFails ? Promise.reject(new Error(options.boardFails)) : answer);
  const world: ThreadWorld = {
    log,
    patches,
    launches: [],
    shown: 0,
    input: { threadId: THREAD, replyTarget: SLACK, ...(options.runWatch ? { runWatch: options.runWatch } : {}) },
    memory,
    ends: new RunEnds(() => memory.currentRunId),
    show: () => void (world.shown += 1),
    wake: () => {
      for (const wait of waits.filter((entry) => entry.test())) {
        waits.splice(waits.indexOf(wait), 1);
        wait.resolve();
      }
    },
    effects: fakeEffects(),
  };
  return world;

  function fakeEffects(): ThreadEffects {
    return {
      patched: (id) => {
        patches.push(id);
        return !(options.off ?? []).includes(id);
      },
      now: () => 1_000,
      condition: (test) => (test() ? Promise.resolve() : new Promise((resolve) => waits.push({ test, resolve }))),
      namespace: () => 'default',
      uncertain,
      status: uncertain.recording().status,
      notice: { deliverReply: log.fn('notice', reply) },
      steer: async (runId, steer) => void log.calls.push({ name: 'steer', input: { runId, ...steer } }),
      stop: async (runId, stop) => void log.calls.push({ name: 'stop', input: { runId, ...stop } }),
      github: {
        githubIssueThread: log.fn('githubIssueThread', () => options.issue ?? Promise.reject(new Error('no such issue'))),
        repoSettings: log.fn('repoSettings', ({ repo }: { repo: string }): RepoSettingsResult => options.settings ?? absentSettings(repo)),
        vetRepository: log.fn('vetRepository', ({ repo }) => options.vet ?? { ok: true, repo, defaultBranch: 'main', private: false }),
      },
      loadSetup: log.fn('loadSetup', () => options.setup ?? agentSetup()),
      plan: log.fn('plan', () => ({ kind: 'plan', planId: 'plan:acme/app:p', agent: 'ship', reply: 'Started plan.' })),
      classify: log.fn('classify', () => ({})),
      spend: (_setup, decision, _message, threadId, runId) =>
        log.fn('spend', () => (options.spend ?? ((spend) => spend))({ decision }))({ runId, threadId }),
      startShipUnit: log.fn('startShipUnit', () => ({ kind: 'unit', unitId: 'unit:acme/app#7', reply: 'Started ship unit.' })),
      boards: {
        readBoard: log.fn('readBoard', () => failsOr({ found: true, entries: [] })),
        changeBoard: log.fn('changeBoard', () => failsOr({ ok: false as const, refused: 'no' })),
        requestConsolidation: log.fn('requestConsolidation', () => failsOr(undefined)),
      },
      startRun: async (launch, start) => {
        world.launches.push({ launch, eager: start.eager, ...(memory.currentRunId ? { currentRunId: memory.currentRunId } : {}) });
        log.calls.push({ name: 'startRun', input: launch.input });
        return {
          stop: log.fn('stopRun', () => undefined),
          ended: async () => {
            log.calls.push({ name: 'ended', input: launch.runId });
            return options.ended ?? { record: runRecord({ runId: launch.runId }) };
          },
        };
      },
      releaseSpend: log.fn('releaseSpend', () => undefined),
    };
  }
}

function absentSettings(repo: string): RepoSettingsResult {
  return {
    repo,
    file: 'absent',
    settings: { review: { triggers: [], debounceSeconds: 60, severity: 'minor' }, issues: { assign: false } },
    problems: [],
  };
}
