import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { type Server } from 'node:http';
import { promisify } from 'node:util';
import express from 'express';
import { temporal } from '@temporalio/proto';
import { createGitHubIdentities } from '../activities/github';
import { createSlackWebClient } from '../activities/slack';
import { createLogger } from '../infra/logger';
import { startLocalGitHub, type LocalGitHub } from '../emulators/local-github';
import { startLocalSlack, type LocalSlack } from '../emulators/local-slack';
import { resolveTemporalBinary } from '../infra/temporal-binaries';
import { sendToThread } from '../infra/thread-client';
import { createGitHubWebhookRouter } from '../server/github-webhooks';
import { localActivityMarker } from '../infra/history/decode';
import { githubDoorAdmission } from './helpers/github-admission';
import {
  planWorkflowType,
  shipUnitWorkflowType,
  stopSignal,
  threadStateQuery,
  unitStateQuery,
  type ReplyTarget,
  type UnitRecord,
} from '../workflows/contracts';
import { freePort } from './helpers/ports';
import { startRunKit, type RunKit } from './helpers/run-kit';
import { testTemporalAddress } from './helpers/temporal';
import { waitUntil } from './helpers/wait';

jest.setTimeout(300_000);
const exec = promisify(execFile);

const SECRET = 'reset-webhook-secret';
const BOT_TOKEN = 'xoxb-reset-test';
const CHANNEL = 'C0RESET';
const OWNER = `reset-${randomUUID().slice(0, 6)}`;
const REPO = `${OWNER}/app`;

/**
 * `temporal workflow reset`, as an operator runs it, of a run, a thread, a unit and a plan, to
 * the first workflow task and to a point in the middle, on the local GitHub and Slack: the
 * workflows redo their work, and every at-most-once write finds the one it made before. No
 * effect key is written twice, and a reset unit starts no round nobody asked for.
 */
describe('workflow reset', () => {
  let github: LocalGitHub;
  let slack: LocalSlack;
  let kit: RunKit;
  let http: Server;

  beforeAll(async () => {
    const port = await freePort();
    github = await startLocalGitHub({
      tokens: { read: ['read-token'], write: ['write-token'] },
      logins: { 'write-token': 'switchboard[bot]' },
      webhookUrl: `http://127.0.0.1:${port}/webhooks/github`,
      webhookSecret: SECRET,
    });
    github.createRepo(OWNER, 'app', { 'README.md': '# app\n' });
    slack = await startLocalSlack({ botToken: BOT_TOKEN });
    kit = await startRunKit('reset', {
      github: createGitHubIdentities({
        apiUrl: github.apiUrl,
        gitUrl: github.gitUrl,
        tokens: { read: 'read-token', write: 'write-token' },
      }),
      slack: {
        client: createSlackWebClient({ token: BOT_TOKEN, apiUrl: slack.apiUrl }),
        namespace: 'default',
      },
      ship: { checksPollSeconds: 2 },
      // A message from Slack may choose only allowed models, as an operator allows the team's scripts.
      allowedModels: ['scripted:kit/*'],
    });
    // The unit's PR events (its own review, its pushes) reach it as they would in production: signed webhooks.
    const app = express();
    app.use(
      '/webhooks/github',
      createGitHubWebhookRouter({
        client: kit.client,
        taskQueue: kit.taskQueue,
        secret: SECRET,
        botLogin: 'switchboard',
        logger: createLogger({ level: 'silent' }),
        admission: (() => {
          const door = githubDoorAdmission(github, { read: 'read-token', write: 'write-token' });
          return {
            facts: () => door.facts(),
            gate: { roleOf: (repo, login) => door.gate.roleOf(repo, login), refuse: (target) => door.gate.refuse(target) },
          };
        })(),
      }),
    );
    http = app.listen(port, '127.0.0.1');
  });
  afterAll(async () => {
    await kit?.close();
    await github?.close();
    await slack?.close();
    http?.close();
  });

  /** A Slack thread to answer in: a root message in the channel. */
  const slackThread = async (text: string): Promise<Extract<ReplyTarget, { kind: 'slack' }>> => {
    const root = slack.state.add({ channel: CHANNEL, text, user: 'U0ANA' });
    return { kind: 'slack', team: 'T0LOCAL', channel: CHANNEL, threadTs: root.ts };
  };

  /** `temporal workflow reset` from the CLI, to the first point of `to` the server can reset to; resolves once the reset execution exists. */
  const reset = async (workflowId: string, to: { firstTask: true } | { eventIds: number[] }) => {
    const before = (await kit.client.workflow.getHandle(workflowId).describe()).runId;
    const points = 'firstTask' in to ? [['--type', 'FirstWorkflowTask']] : to.eventIds.map((id) => ['--event-id', String(id)]);
    let refused: Error | undefined;
    for (const where of points) {
      try {
        await exec(resolveTemporalBinary('cli').path, [
          'workflow',
          'reset',
          '--address',
          testTemporalAddress(),
          '--workflow-id',
          workflowId,
          ...where,
          '--reason',
          'reset test',
          '--yes',
        ]);
        refused = undefined;
        break;
      } catch (error) {
        // "this event must be at the boundary": a task completed in the same batch as other events; the next one will do.
        refused = error as Error;
      }
    }
    if (refused) throw refused;
    return waitUntil(
      () => kit.client.workflow.getHandle(workflowId).describe(),
      (description) => description.runId !== before,
    );
  };

  /** Waits for the workflow's latest execution to close, and returns its status. */
  const closed = (workflowId: string) =>
    waitUntil(
      () => kit.client.workflow.getHandle(workflowId).describe(),
      (description) => description.status.name !== 'RUNNING',
      120_000,
    );

  /**
   * The workflow tasks its latest execution completed after the first event `matches`, oldest
   * first: reset points in the middle (the server takes those at a batch boundary).
   */
  const after = async (workflowId: string, matches: (event: temporal.api.history.v1.IHistoryEvent) => boolean): Promise<number[]> => {
    const events = (await kit.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    const found = events.find(matches);
    const next = events.filter(
      (event) => found && Number(event.eventId) > Number(found.eventId) && event.workflowTaskCompletedEventAttributes,
    );
    if (next.length === 0)
      throw new Error(`no reset point in ${workflowId}: ${events.map((event) => `${event.eventId} ${event.eventType}`).join(', ')}`);
    return next.map((event) => Number(event.eventId));
  };
  /** After the first completed activity of this type. */
  const afterActivity = async (workflowId: string, activityType: string): Promise<number[]> => {
    const events = (await kit.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    const scheduled = events.find((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === activityType);
    return after(
      workflowId,
      (event) => String(event.activityTaskCompletedEventAttributes?.scheduledEventId ?? '') === String(scheduled?.eventId ?? '-'),
    );
  };
  /**
   * The two reset points of each test: `middle` of the original execution first, then the first
   * workflow task (a reset execution may take another path: a plan whose unit has settled starts none).
   */
  const resetPoints = (middle: () => Promise<number[]>) => [
    async () => ({ eventIds: await middle() }),
    async () => ({ firstTask: true }) as const,
  ];

  /** The failed workflow tasks of the workflow's latest execution (the reset's own marker of where it reset is not one). */
  const failedTasks = async (workflowId: string) =>
    ((await kit.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [])
      .filter(
        (event) =>
          event.workflowTaskFailedEventAttributes &&
          event.workflowTaskFailedEventAttributes.cause !==
            temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW,
      )
      .map((event) => event.workflowTaskFailedEventAttributes?.failure?.message);

  /** Every effect key written on the local GitHub (issues, PRs, comments, reviews) and in the local Slack, with how often. */
  const writtenKeys = (): Record<string, number> => {
    const counts: Record<string, number> = {};
    const count = (key: string) => (counts[key] = (counts[key] ?? 0) + 1);
    const repo = github.state.repo(OWNER, 'app')!;
    for (const item of repo.issues.values()) {
      for (const body of [item.body, ...item.comments.map((c) => c.body), ...item.reviews.map((r) => r.body ?? '')])
        for (const match of body.matchAll(/<!-- switchboard-effect: (\S+) -->/g)) count(`github ${match[1]}`);
    }
    for (const message of slack.state.messages(CHANNEL)) {
      const payload = message.metadata?.event_payload;
      const key = payload?.effect_key;
      if (typeof key === 'string') count(`slack ${key}${typeof payload?.part === 'number' ? `#${payload.part}` : ''}`);
    }
    return counts;
  };
  const writtenTwice = () => Object.entries(writtenKeys()).filter(([, times]) => times > 1);

  it('a run that opened an issue and commented, reset to its first task and to after its first write, writes nothing twice; so does its thread', async () => {
    const model = kit.script('reset-commenter', [
      {
        text: 'Filing it.',
        toolCalls: [{ name: 'github_issue_create', input: { repo: REPO, title: 'Flaky test', body: 'It fails one run in ten.' } }],
      },
      { text: 'Commenting.', toolCalls: [{ name: 'github_issue_comment', input: { repo: REPO, number: 1, body: 'Looking into it.' } }] },
      { text: 'Opened #1 and commented on it.' },
    ]);
    const replyTarget = await slackThread('please file the flake');
    const threadId = `thread:slack:T0LOCAL:${CHANNEL}:${replyTarget.threadTs}`;
    const outcome = await sendToThread(kit.client, kit.taskQueue, {
      threadId,
      input: { threadId, replyTarget },
      message: {
        messageId: `reset:${randomUUID()}`,
        text: `agent:general model:${model} file the flake`,
        requester: { id: 'U0ANA', surface: 'slack' },
      },
      summary: 'reset test',
    });
    expect(outcome).toMatchObject({ kind: 'run' });
    const runId = outcome!.runId!;
    expect((await kit.result(runId)).outcome).toBe('completed');
    await waitUntil(
      () => kit.client.workflow.getHandle(threadId).query(threadStateQuery),
      (state) => state.currentRunId === undefined,
    );
    await waitUntil(
      async () => writtenKeys(),
      (keys) => Object.keys(keys).some((key) => key.endsWith(`${runId}/answer`)),
    );
    const before = writtenKeys();
    expect(Object.keys(before).filter((key) => key.startsWith('github'))).toHaveLength(2);
    expect(github.state.countWrites('issue.create', REPO)).toBe(1);
    expect(github.state.countWrites('comment.create', REPO)).toBe(1);

    for (const point of resetPoints(() => afterActivity(runId, 'createIssue'))) {
      const to = await point();
      await reset(runId, to);
      expect((await closed(runId)).status.name).toBe('COMPLETED');
      expect({ to, twice: writtenTwice() }).toEqual({ to, twice: [] });
      expect(github.state.countWrites('issue.create', REPO)).toBe(1);
      expect(github.state.countWrites('comment.create', REPO)).toBe(1);
    }
    // The thread, reset, decides again and starts its run again: the run it started is closed, so it is
    // adopted (its end read from Temporal), never run a second time, and nothing is written twice.
    const runExecutions = async () => {
      let count = 0;
      for await (const _ of kit.client.workflow.list({ query: `WorkflowId = '${runId}'` })) count += 1;
      return count;
    };
    const executionsBefore = await waitUntil(runExecutions, (count) => count >= 3);
    for (const point of resetPoints(() => after(threadId, (event) => localActivityMarker(event)?.activityType === 'startRun'))) {
      const to = await point();
      await reset(threadId, to);
      await waitUntil(
        () => kit.client.workflow.getHandle(threadId).query(threadStateQuery),
        (state) => state.runCount === 1 && state.currentRunId === undefined && state.outcomes.length === 1,
        120_000,
      );
      expect({ to, twice: writtenTwice() }).toEqual({ to, twice: [] });
      expect(await failedTasks(threadId)).toEqual([]);
    }
    expect(await runExecutions()).toBe(executionsBefore);
    expect(Object.keys(writtenKeys()).sort()).toEqual(Object.keys(before).sort());
    expect(github.state.countWrites('issue.create', REPO)).toBe(1);
    expect(github.state.countWrites('comment.create', REPO)).toBe(1);
  });

  it('a unit reset to its first task and to after it opened its PR writes nothing twice and takes its own review for no one else’s', async () => {
    // Each round writes the file whole (a reset round finds the branch as it left it); review 1 asks for a fix, later ones approve.
    const model = kit.script('reset-unit', [
      {
        alternatives: [
          {
            when: { lastUserIncludes: '(review 1 of this unit)' },
            text: 'One finding.',
            toolCalls: [
              {
                name: 'submit_review',
                input: {
                  verdict: 'request_changes',
                  summary: 'The greeting names no one.',
                  findings: [
                    {
                      severity: 'minor',
                      path: 'greeting.txt',
                      line: 1,
                      title: 'Nobody is greeted',
                      scenario: 'A reader opens the file and is not greeted.',
                      impact: 'The change does not do what was asked.',
                    },
                  ],
                },
              },
            ],
          },
          {
            when: { lastUserIncludes: 'of this unit)' },
            text: 'Good.',
            toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Good.', findings: [] } }],
          },
          {
            when: { lastUserIncludes: 'The review asks' },
            text: 'Fixing.',
            toolCalls: [{ name: 'bash', input: { command: 'echo "Hello, reader." > greeting.txt' } }],
          },
          {
            text: 'Greeting.',
            toolCalls: [
              { name: 'bash', input: { command: 'echo "Hello." > greeting.txt' } },
              { name: 'submit_description', input: { title: 'Add a greeting', body: 'Adds greeting.txt.' } },
            ],
          },
        ],
      },
      { text: 'Done.' },
    ]);
    const replyTarget = await slackThread('ship a greeting');
    const unitId = `unit:${REPO}:greeting`;
    const unit = await kit.client.workflow.start(shipUnitWorkflowType, {
      workflowId: unitId,
      taskQueue: kit.taskQueue,
      args: [{ unitId, repo: REPO, request: 'Add a greeting file', replyTarget, requester: { id: 'U0ANA', surface: 'slack' }, model }],
    });
    const idle = () =>
      waitUntil(
        () => unit.query(unitStateQuery),
        (state) => state.phase === 'idle',
        150_000,
      );
    const first = await idle();
    expect(first).toMatchObject({ round: 2, lastReview: { verdict: 'approve' } });
    expect(github.state.countWrites('review.create', REPO)).toBe(2);
    const pullRequest = first.pullRequest!;

    for (const point of resetPoints(() => afterActivity(unitId, 'openOrUpdatePullRequest'))) {
      const to = await point();
      await reset(unitId, to);
      const again = await idle();
      // Its own earlier review (re-applied by the reset, a request for changes) started no round: two rounds, as asked,
      // on the same PR. (Reset in the middle, its own later push comes back first, so it reviews that head: what the
      // scripted reviewer says of it differs, what is posted is found by its marker.)
      expect({ to, round: again.round, pullRequest: again.pullRequest }).toEqual({ to, round: 2, pullRequest });
      expect({ to, twice: writtenTwice() }).toEqual({ to, twice: [] });
      expect(github.state.countWrites('pull_request.create', REPO)).toBe(1);
      expect(await failedTasks(unitId)).toEqual([]);
    }
    // The latest execution (the handle from the start follows the first one, which the reset ended).
    const latest = kit.client.workflow.getHandle(unitId);
    await latest.signal(stopSignal, { reason: 'reset test over', by: 'tester' });
    expect(((await latest.result()) as UnitRecord).outcome).toBe('stopped');
    expect(writtenTwice()).toEqual([]);
  });

  it('a plan reset to its first task and to after it started its unit starts and merges nothing twice', async () => {
    const model = kit.script('reset-plan', [
      {
        alternatives: [
          {
            when: { lastUserIncludes: 'of this unit)' },
            text: 'Good.',
            toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Good.', findings: [] } }],
          },
          { text: 'Notes.', toolCalls: [{ name: 'bash', input: { command: 'echo "notes" > notes.txt' } }] },
        ],
      },
      { text: 'Done.' },
    ]);
    const replyTarget = await slackThread('plan the notes');
    const planId = `plan:${REPO}:notes`;
    const plan = await kit.client.workflow.start(planWorkflowType, {
      workflowId: planId,
      taskQueue: kit.taskQueue,
      args: [
        {
          planId,
          repo: REPO,
          replyTarget,
          requester: { id: 'U0ANA', surface: 'slack' },
          model,
          mergeAuthority: true,
          units: [{ key: 'notes', request: 'Add the notes file' }],
        },
      ],
    });
    expect((await plan.result()).outcome).toBe('completed');
    const unitId = `unit:${REPO}:notes-notes`;
    const unitRuns = async () => {
      let count = 0;
      for await (const _ of kit.client.workflow.list({ query: `WorkflowId = '${unitId}'` })) count += 1;
      return count;
    };
    expect(await unitRuns()).toBe(1);
    expect(github.state.countWrites('pull_request.merge', REPO)).toBe(1);
    for (const point of resetPoints(() => afterActivity(planId, 'startUnit'))) {
      const to = await point();
      await reset(planId, to);
      expect({ to, status: (await closed(planId)).status.name }).toEqual({ to, status: 'COMPLETED' });
      expect({ to, twice: writtenTwice() }).toEqual({ to, twice: [] });
      expect(await failedTasks(planId)).toEqual([]);
    }
    expect(await unitRuns()).toBe(1);
    expect(github.state.countWrites('pull_request.merge', REPO)).toBe(1);
  });
});
