import { DEFAULT_SHIP_SETTINGS } from '../../activities/agents/agent-setup';
import type { CommitChecks, EffectResult, PullActivity, PullDetail } from '../contracts/github';
import type { PlanUnitProgress, RunRecord, UnitCarry, UnitPhase } from '../contracts';
import { TimeoutFailure, TimeoutType } from '@temporalio/common';
import { CallLog, FakeClock } from '../test-support';
import { Unit, type UnitActivities, type UnitSettings } from './unit';
import { UnitInbox } from './unit-inbox';

/** A ship unit over fakes, for the phase classes' unit tests (test-only: no workflow imports it). */
export const UNIT = 'unit:acme/app:greet';
export const MINUTE = 60_000;

export interface World {
  unit: Unit;
  log: CallLog;
  clock: FakeClock;
  phases: UnitPhase[];
  plan: PlanUnitProgress[];
  /** The runs the unit started: kind and request. */
  runs: Array<{ workflowId: string; request: string; workspaceHost?: string; findings?: string[] }>;
  /** Where each run the unit started reports. */
  replyTargets: string[];
  /** Delivers the held `settled` plan update (inPlan). */
  land: () => void;
}

/**
 * A unit over fakes: activities answer from `answers`, child runs from `run`, and the ports
 * record what the workflow would do (phases entered, plan notices).
 */
export function world(
  options: {
    carry?: Partial<UnitCarry>;
    run?: (request: string) => Partial<RunRecord> | undefined;
    pull?: Partial<PullDetail>;
    checks?: Partial<CommitChecks>;
    changed?: boolean;
    write?: Partial<EffectResult>;
    /** The unit belongs to a plan; its `settled` update lands only when `land()` is called. */
    inPlan?: boolean;
    /** An exact-PR unit (`unit:<repo>#7`), started on a person's PR. */
    exactPr?: boolean;
    /** Checkouts are prepared on host queue `q@a`, whose calls are logged as `<name>@q@a`; `lostAt` finds it gone there. */
    host?: { lostAt?: 'commitWorkspace' | 'pushBranch' };
    /** What prepareUnitWorkspace answers besides its defaults (headSha `base-1`, no baseSha). */
    prepared?: { headSha?: string; baseSha?: string };
    /** Patches that answer false, as when replaying a history recorded before them. */
    unpatched?: string[];
    /** What githubPullActivity answers (default: nothing on the PR). */
    activity?: Partial<PullActivity>;
    /** Its conversation: `pull-request` for a unit of a plan asked on GitHub (its plan's conversation is issue #3). */
    conversation?: 'pull-request';
    /** The spend caps (the unit's settings), for its rounds' reservations. */
    spend?: NonNullable<UnitSettings['spend']>;
  } = {},
): World {
  const log = new CallLog();
  const clock = new FakeClock();
  const phases: UnitPhase[] = [];
  const plan: PlanUnitProgress[] = [];
  const runs: World['runs'] = [];
  const replyTargets: string[] = [];
  let land = () => undefined as void;
  const carry: UnitCarry = {
    phase: 'coding',
    round: 0,
    branch: 'switchboard/acme/app-greet',
    work: [{ kind: 'request', text: 'Greet the reader' }],
    reviews: 0,
    postedReviews: [],
    runMinutes: 0,
    reminders: 0,
    startedAt: clock.now(),
    ...options.carry,
  };
  const pull: PullDetail = {
    number: 7,
    title: 't',
    body: 'b',
    state: 'open',
    merged: false,
    draft: false,
    headRef: carry.branch,
    headSha: 'head-1',
    baseRef: 'main',
    url: 'u',
    files: [],
    ...options.pull,
  };
  const effect = (input: { effectKey: string }): EffectResult => ({ status: 'confirmed', effectKey: input.effectKey, ...options.write });
  const activities: UnitActivities = {
    workspace: {
      prepareUnitWorkspace: log.fn('prepareUnitWorkspace', () => ({
        path: '/work',
        headSha: 'base-1',
        base: 'main',
        ...(options.host ? { hostTaskQueue: 'q@a' } : {}),
        ...options.prepared,
      })),
      commitWorkspace: log.fn('commitWorkspace', () => ({ headSha: 'head-1', changed: options.changed ?? true })),
      releaseWorkspace: log.fn('releaseWorkspace', () => undefined),
    },
    github: {
      pushBranch: log.fn('pushBranch', effect),
      githubPullGet: log.fn('githubPullGet', () => pull),
      githubCommitChecks: log.fn('githubCommitChecks', () => ({
        sha: pull.headSha,
        overall: 'success',
        checkRuns: [],
        statuses: [],
        ...options.checks,
      })),
      githubPullActivity: log.fn('githubPullActivity', () => ({ reviews: [], reviewComments: [], comments: [], ...options.activity })),
    },
    githubWrites: {
      openOrUpdatePullRequest: log.fn('openOrUpdatePullRequest', (input: { effectKey: string }) => ({ ...effect(input), number: 7 })),
      postReview: log.fn('postReview', (input: { effectKey: string }) => ({ ...effect(input), id: 99 })),
      postComment: log.fn('postComment', effect),
      mergePullRequest: log.fn('mergePullRequest', effect),
      replyToReviewComment: log.fn('replyToReviewComment', (input: { effectKey: string }) => ({ ...effect(input), reviewId: 500 })),
      resolveReviewThread: log.fn('resolveReviewThread', effect),
    },
    status: { deliverReply: log.fn('deliverReply', (input: { effectKey: string }) => ({ status: 'confirmed' as const, ...input })) },
    onHost: (queue: string) => {
      const onHost = <I, O>(name: string, answer: (input: I) => O) =>
        log.fn(`${name}@${queue}`, (input: I) => {
          if (options.host?.lostAt === name)
            throw Object.assign(new Error('timed out'), { cause: new TimeoutFailure('t', undefined, TimeoutType.SCHEDULE_TO_START) });
          return answer(input);
        });
      return {
        unitWorkspace: {
          commitWorkspace: onHost('commitWorkspace', () => ({ headSha: 'head-1', changed: options.changed ?? true })),
          releaseWorkspace: onHost('releaseWorkspace', () => undefined),
        },
        github: { pushBranch: onHost('pushBranch', effect) },
      };
    },
  } as unknown as UnitActivities;
  const chosen = { profile: {} as never, system: '' };
  const unit = new Unit(
    {
      unitId: UNIT,
      repo: 'acme/app',
      request: 'Greet the reader',
      replyTarget: options.conversation ? { kind: 'github', repo: 'acme/app', pullRequest: 3, issue: true } : { kind: 'cli' },
      requester: { id: 'ada', surface: 'cli' },
      ...(options.conversation ? { conversation: options.conversation } : {}),
      ...(options.inPlan ? { plan: { workflowId: 'plan:acme/app:p', key: 'greet', mergeAuthority: true } } : {}),
      ...(options.exactPr ? { pullRequest: 7 } : {}),
    },
    carry,
    new UnitInbox(carry),
    {
      ship: { ...DEFAULT_SHIP_SETTINGS, checksPollSeconds: 120 },
      coding: chosen,
      review: chosen,
      budgetMinutes: 120,
      ...(options.spend ? { spend: options.spend } : {}),
    },
    activities,
    {
      now: clock.now,
      condition: clock.condition.bind(clock),
      startRun: async (workflowId, input) => {
        runs.push({
          workflowId,
          request: input.request,
          ...(input.workspaceHost ? { workspaceHost: input.workspaceHost } : {}),
          ...(input.findings ? { findings: input.findings.map((f) => f.id) } : {}),
        });
        replyTargets.push(input.replyTarget.kind === 'github' ? `#${input.replyTarget.pullRequest}` : input.replyTarget.kind);
        const record = options.run?.(input.request);
        return {
          result: async () => {
            if (!record) throw new Error('the child failed');
            return { outcome: 'completed', submissions: {}, startedAt: 0, endedAt: 3 * MINUTE, ...record } as RunRecord;
          },
          signal: async () => undefined,
        };
      },
      entered: (phase) => phases.push(phase),
      openedPullRequest: () => undefined,
      notifyPlan: async (progress) => {
        plan.push(progress);
        if (options.inPlan && progress.status === 'settled') await new Promise<void>((resolve) => (land = resolve));
      },
      patched: (id) => !options.unpatched?.includes(id),
      recordOutcome: () => undefined,
    },
  );
  return { unit, log, clock, phases, plan, runs, replyTargets, land: () => land() };
}

export const approve = { submissions: { submit_review: { verdict: 'approve', summary: 'Good.', findings: [] } } };
export const finding = {
  severity: 'major',
  path: 'README.md',
  line: 1,
  title: 'No greeting',
  scenario: 'A reader opens it.',
  impact: 'Nothing greets them.',
};
