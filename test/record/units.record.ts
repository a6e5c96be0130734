/**
 * Records histories of `shipUnitWorkflow` and `planWorkflow` (run with `npm run
 * record-histories`, see docs/versioning.md) against the local GitHub, with scripted models.
 */
import { type TestWorkflowEnvironment } from '@temporalio/testing';
import { createGitHubActivities, createGitHubIdentities } from '../../activities/github';
import { resendWorkflowId } from '../../activities/units/uncertain-client';
import { sendMessage } from '../../cli/commands/ask';
import { resend } from '../../cli/commands/resend';
import {
  checksSignal,
  planStateQuery,
  planWorkflowType,
  prEventSignal,
  steerSignal,
  stopSignal,
  threadStateQuery,
  unitStateQuery,
  type UnitState,
} from '../../workflows/contracts';
import { runsOf, saveHistory } from '../helpers/history';
import { findingThenApprovalScript, REPO, startShipKit, type ShipKit } from '../helpers/ship-kit';
import { timeSkippingEnvironment } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';
import { shortHistoryEnvironment } from './servers';

jest.setTimeout(240_000);

/** A coding run that never ends on its own. */
function slowScript(ship: ShipKit, name: string): string {
  return ship.kit.script(name, [
    { text: 'Working slowly.', toolCalls: [{ name: 'bash', input: { command: 'sleep 3377' } }] },
    { text: 'never' },
  ]);
}

/** Coding adds a file (slowly when asked); reviews approve. */
function approvingScript(ship: ShipKit, name: string): string {
  return ship.kit.script(name, [
    {
      alternatives: [
        {
          when: { lastUserIncludes: 'of this unit)' },
          text: 'Fine.',
          toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Good.', findings: [] } }],
        },
        { when: { lastUserIncludes: 'slowly' }, text: 'Slow.', toolCalls: [{ name: 'bash', input: { command: 'sleep 3379' } }] },
        { text: 'Changing.', toolCalls: [{ name: 'bash', input: { command: 'echo "$RANDOM" >> "notes-$RANDOM.txt"' } }] },
      ],
    },
    { text: 'done' },
  ]);
}

describe('units', () => {
  let ship: ShipKit;
  /** The worker's catalog lacks the coding agent for the next start (a worker of another version). */
  let noCodingAgent = false;
  beforeAll(async () => {
    ship = await startShipKit('record-units', {
      agents: { featureFlags: { orchestrator: true } },
      wrapActivities: (activities) => ({
        ...activities,
        async loadAgentSetup() {
          const setup = await activities.loadAgentSetup();
          if (!noCodingAgent) return setup;
          return { ...setup, catalog: { ...setup.catalog, agents: setup.catalog.agents.filter((agent) => agent.id !== 'coding') } };
        },
      }),
    });
  });
  afterAll(async () => ship.close());
  const client = () => ship.kit.env.client;

  test('a unit carried to a merged PR: findings, a fix, approval, CI by signal, idle, merged', async () => {
    const unitId = `unit:${REPO}:record-merged`;
    const unit = await ship.start({ unitId, request: 'Add a greeting to the README', model: findingThenApprovalScript(ship, 'merged') });
    const checking = await waitUntil(
      () => unit.query(unitStateQuery),
      (state) => state.phase === 'checks' && state.round === 2,
      120_000,
    );
    ship.github.setCheckRun(REPO, checking.headSha!, { name: 'ci', status: 'completed', conclusion: 'success' });
    await unit.signal(checksSignal, {
      repo: REPO,
      number: checking.pullRequest!,
      headSha: checking.headSha!,
      source: 'check_run',
      name: 'ci',
      conclusion: 'success',
    });
    const idle = await waitUntil(
      () => unit.query(unitStateQuery),
      (state) => state.phase === 'idle',
    );
    await unit.signal(prEventSignal, {
      repo: REPO,
      number: idle.pullRequest!,
      kind: 'merged',
      headSha: idle.headSha,
      deliveryId: 'merged',
    });
    expect((await unit.result()).outcome).toBe('merged');
    await saveHistory(client(), unitId, 'unit/merged');
    await saveHistory(client(), `${unitId}/coding-1-1`, 'run/unit-coding');
    await saveHistory(client(), `${unitId}/review-1-1`, 'run/unit-review');
  });

  test('a unit stopped during its coding run', async () => {
    const unitId = `unit:${REPO}:record-stopped`;
    const unit = await ship.start({ unitId, request: 'Add a slow change', model: slowScript(ship, 'stopped') });
    await waitUntil(
      () => unit.query(unitStateQuery),
      (state) => state.phase === 'coding' && Boolean(state.currentRun),
    );
    await unit.signal(stopSignal, { reason: 'changed my mind', by: 'tester' });
    expect((await unit.result()).outcome).toBe('stopped');
    await saveHistory(client(), unitId, 'unit/stopped');
  });

  test('a unit whose coding run changes nothing fails', async () => {
    const unitId = `unit:${REPO}:record-failed`;
    const model = ship.kit.script('nothing', [{ text: 'Nothing to do.' }]);
    const unit = await ship.start({ unitId, request: 'Change nothing', model });
    expect((await unit.result()).outcome).toBe('failed');
    await saveHistory(client(), unitId, 'unit/failed');
  });

  test('a unit whose setup fails (agent_unknown) settles failed', async () => {
    const unitId = `unit:${REPO}:record-setup-failed`;
    noCodingAgent = true;
    try {
      const unit = await ship.start({ unitId, request: 'Add anything' });
      expect((await unit.result()).outcome).toBe('failed');
    } finally {
      noCodingAgent = false;
    }
    await saveHistory(client(), unitId, 'unit/setup-failed');
  });

  test('an exact-PR unit steered onto its PR branch; direct review and coding runs of that PR', async () => {
    ship.github.commit(REPO, 'person', { 'person.txt': 'from a person\n' });
    const person = createGitHubActivities({
      identities: createGitHubIdentities({ apiUrl: ship.github.apiUrl, gitUrl: ship.github.gitUrl, tokens: { write: 'write-token' } }),
    });
    const opened = await person.openOrUpdatePullRequest({
      repo: REPO,
      head: 'person',
      base: 'main',
      title: 'P',
      body: 'p',
      effectKey: 'p',
    });
    const unitId = `unit:${REPO}#${opened.number}`;
    const unit = await ship.start({ unitId, pullRequest: opened.number, request: 'Tidy up', model: approvingScript(ship, 'exact') });
    await waitUntil(
      () => unit.query(unitStateQuery),
      (state) => state.phase === 'idle',
    );
    await unit.signal(steerSignal, { text: 'Add notes', by: 'tester' });
    await waitUntil(
      () => unit.query(unitStateQuery),
      (state) => state.phase === 'idle' && state.round === 1,
      120_000,
    );
    await unit.signal(stopSignal, { reason: 'recorded', by: 'tester' });
    expect((await unit.result()).reviews).toBe(2);
    await saveHistory(client(), unitId, 'unit/exact-pr-steered');

    const review = ship.kit.script('direct-review', [
      { text: 'Fine.', toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Good.', findings: [] } }] },
      { text: 'Reviewed.' },
    ]);
    const reviewed = await ship.kit.start(`in ${REPO}: review #${opened.number}`, { agent: 'review', model: review });
    expect((await ship.kit.result(reviewed.runId)).finalText).toContain('Delivered approving review');
    await saveHistory(client(), reviewed.runId, 'run/direct-review');
    const coding = ship.kit.script('direct-coding', [
      {
        text: 'Changing.',
        toolCalls: [
          { name: 'bash', input: { command: 'echo "direct" >> NOTES.md' } },
          { name: 'submit_description', input: { title: 'Add notes', body: 'Adds notes.' } },
        ],
      },
      { text: 'Done.' },
    ]);
    const coded = await ship.kit.start(`in ${REPO}: add notes`, { agent: 'coding', model: coding });
    expect((await ship.kit.result(coded.runId)).finalText).toContain('Delivered draft pull request');
    await saveHistory(client(), coded.runId, 'run/direct-coding');
  });

  // A client's cancel is a stop (workflows/cancel-as-stop.ts): the unit stops its run and settles.
  test('a unit cancelled by a client during its coding run', async () => {
    const unitId = `unit:${REPO}:record-cancelled`;
    const unit = await ship.start({ unitId, request: 'Add another slow change', model: slowScript(ship, 'cancelled') });
    await waitUntil(
      () => unit.query(unitStateQuery),
      (state) => state.phase === 'coding' && Boolean(state.currentRun),
    );
    await unit.cancel();
    expect((await unit.result()).outcome).toBe('stopped');
    await saveHistory(client(), unitId, 'unit/cancelled');
  });

  test('a closed unit whose report was lost, resent by resendWorkflow', async () => {
    const created = await fetch(`${ship.github.apiUrl}/repos/${REPO}/issues`, {
      method: 'POST',
      headers: { authorization: 'token write-token', 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'record resend' }),
    });
    const { number } = (await created.json()) as { number: number };
    const unitId = `unit:${REPO}:record-resend`;
    const report = `${unitId}/report`;
    // The report's POST is answered 502 without being applied: its retry finds no marker.
    ship.github.faults.serverErrors({ method: 'POST', path: `/issues/${number}/comments`, bodyIncludes: report }, 1);
    const model = ship.kit.script('resend-nothing', [{ text: 'Nothing to do.' }]);
    const unit = await ship.start({
      unitId,
      request: 'Change nothing',
      model,
      replyTarget: { kind: 'github', repo: REPO, pullRequest: number },
    });
    const record = await unit.result();
    expect(record.unconfirmed?.map((write) => write.effectKey)).toEqual([report]);
    const resent = await resend(client(), ship.kit.taskQueue, unitId, { effectKey: report, by: 'recorder' });
    expect(resent.decision.status).toBe('confirmed');
    await saveHistory(client(), unitId, 'unit/report-unconfirmed');
    await saveHistory(client(), resendWorkflowId(report), 'resend/closed-unit-report');
  });

  test('a thread that starts a unit for a code change; an orchestrator run that steers and stops it', async () => {
    const unitId = `unit:${REPO}:record-orchestrated`;
    const sent = await sendMessage(client(), ship.kit.taskQueue, `agent:ship in ${REPO}: add a slow change`, {
      requester: 'ada',
      model: slowScript(ship, 'thread-unit'),
    });
    expect(sent.outcome.kind).toBe('unit');
    const started = sent.outcome.unitId!;
    await waitUntil(
      () => client().workflow.getHandle(sent.threadId).query(threadStateQuery),
      (state) => state.outcomes.length === 1,
    );
    await saveHistory(client(), sent.threadId, 'thread/ship-request');
    await client().workflow.getHandle(started).signal(stopSignal, { reason: 'recorded', by: 'tester' });
    await client().workflow.getHandle(started).result();

    const model = ship.kit.script('orchestrator', [
      {
        alternatives: [
          {
            when: { lastUserIncludes: 'The change requested' },
            text: 'Slow.',
            toolCalls: [{ name: 'bash', input: { command: 'sleep 3378' } }],
          },
          {
            text: 'Starting.',
            toolCalls: [{ name: 'unit_start', input: { repo: REPO, request: 'Add a greeting', slug: 'record-orchestrated' } }],
          },
        ],
      },
      { text: 'Inspecting.', toolCalls: [{ name: 'unit_inspect', input: { unitId } }] },
      { text: 'Steering.', toolCalls: [{ name: 'unit_steer', input: { unitId, text: 'also greet in French' } }] },
      { text: 'Stopping.', toolCalls: [{ name: 'unit_stop', input: { unitId, reason: 'enough' } }] },
      { text: 'Done: {{lastToolResult}}' },
    ]);
    const { runId } = await ship.kit.start('start a unit for the greeting', { agent: 'orchestrator', model, requester: 'ada' });
    expect((await ship.kit.result(runId)).outcome).toBe('completed');
    expect((await client().workflow.getHandle(unitId).result()).outcome).toBe('stopped');
    await saveHistory(client(), runId, 'run/orchestrator-unit-tools');
    await saveHistory(client(), unitId, 'unit/steered-and-stopped-by-a-run');
  });
});

describe('a unit that continues-as-new', () => {
  let short: Awaited<ReturnType<typeof shortHistoryEnvironment>>;
  let ship: ShipKit;
  beforeAll(async () => {
    short = await shortHistoryEnvironment();
    ship = await startShipKit('record-units-short', { env: short.env });
  });
  afterAll(async () => {
    await ship.close();
    await short.close();
  });

  test('continues-as-new before its second coding round, then idles and is stopped', async () => {
    const unitId = `unit:${REPO}:record-continued`;
    const unit = await ship.start({ unitId, request: 'Add a greeting to the README', model: findingThenApprovalScript(ship, 'continued') });
    const checking = await waitUntil(
      () => unit.query(unitStateQuery),
      (state) => state.phase === 'checks' && state.round === 2,
      120_000,
    );
    ship.github.setCheckRun(REPO, checking.headSha!, { name: 'ci', status: 'completed', conclusion: 'success' });
    await waitUntil(
      () => unit.query(unitStateQuery),
      (state: UnitState) => state.phase === 'idle',
      60_000,
    );
    await unit.signal(stopSignal, { reason: 'recorded', by: 'tester' });
    await ship.kit.env.client.workflow.getHandle(unitId).result();
    const runs = await runsOf(ship.kit.env.client, unitId, 2);
    await saveHistory(ship.kit.env.client, unitId, 'unit/continued-as-new-first', runs[0]);
    await saveHistory(ship.kit.env.client, unitId, 'unit/continued-as-new-last', runs[runs.length - 1]);
  });
});

describe('unit timers on the time-skipping server', () => {
  let env: TestWorkflowEnvironment;
  let ship: ShipKit;
  beforeAll(async () => {
    env = await timeSkippingEnvironment();
    ship = await startShipKit('record-timers', { env, ship: { checksPollSeconds: 120, idleTimeoutDays: 7, reminderHours: 48 } });
  });
  afterAll(async () => {
    await ship.close();
    await env.teardown();
  });

  test('a unit that polls CI on a timer, idles with reminders and expires', async () => {
    const unit = await ship.start({
      unitId: `unit:${REPO}:record-idle`,
      request: 'Greet the reader',
      model: approvingScript(ship, 'idle'),
    });
    const reviewing = await waitUntil(
      () => unit.query(unitStateQuery),
      (state) => state.phase === 'review' && Boolean(state.headSha),
    );
    ship.github.setCheckRun(REPO, reviewing.headSha!, { name: 'ci', status: 'in_progress', conclusion: null });
    await waitUntil(
      () => unit.query(unitStateQuery),
      (state) => state.phase === 'checks' && (state.checks?.polls ?? 0) >= 1,
    );
    ship.github.setCheckRun(REPO, reviewing.headSha!, { name: 'ci', status: 'completed', conclusion: 'success' });
    await env.sleep('3 minutes');
    expect((await unit.result()).outcome).toBe('idle_expired');
    await saveHistory(env.client, `unit:${REPO}:record-idle`, 'unit/idle-timers-expired');
  });
});

describe('plans', () => {
  let ship: ShipKit;
  beforeAll(async () => {
    ship = await startShipKit('record-plans');
  });
  afterAll(async () => ship.close());
  const start = (planId: string, units: Array<{ key: string; request: string; dependsOn?: string[] }>, model?: string) =>
    ship.kit.env.client.workflow.start(planWorkflowType, {
      workflowId: planId,
      taskQueue: ship.kit.taskQueue,
      args: [
        {
          planId,
          repo: REPO,
          replyTarget: { kind: 'cli' },
          requester: { id: 'tester', surface: 'cli' },
          mergeAuthority: true,
          units,
          ...(model ? { model } : {}),
        },
      ],
    });

  test('a plan that starts two units in order and merges them', async () => {
    const planId = `plan:${REPO}:record-merged`;
    const plan = await start(
      planId,
      [
        { key: 'second', request: 'Add the second part', dependsOn: ['first'] },
        { key: 'first', request: 'Add the first part' },
      ],
      approvingScript(ship, 'plan'),
    );
    const record = await plan.result();
    expect(record.outcome).toBe('completed');
    await saveHistory(ship.kit.env.client, planId, 'plan/merged-in-order');
    await saveHistory(ship.kit.env.client, record.units.find((unit) => unit.key === 'first')!.unitId, 'unit/merged-by-its-plan');
  });

  test('a plan stopped while its first unit codes', async () => {
    const planId = `plan:${REPO}:record-stopped`;
    const plan = await start(
      planId,
      [
        { key: 'one', request: 'Work slowly on one' },
        { key: 'two', request: 'Then two', dependsOn: ['one'] },
      ],
      approvingScript(ship, 'plan-stopped'),
    );
    await waitUntil(
      () => plan.query(planStateQuery),
      (state) => state.units.some((unit) => unit.status === 'running'),
    );
    await plan.signal(stopSignal, { reason: 'recorded', by: 'tester' });
    expect((await plan.result()).outcome).toBe('stopped');
    await saveHistory(ship.kit.env.client, planId, 'plan/stopped');
  });

  test('a plan cancelled by a client while its first unit codes', async () => {
    const planId = `plan:${REPO}:record-cancelled`;
    const plan = await start(
      planId,
      [
        { key: 'one', request: 'Work slowly on one' },
        { key: 'two', request: 'Then two', dependsOn: ['one'] },
      ],
      approvingScript(ship, 'plan-cancelled'),
    );
    await waitUntil(
      () => plan.query(planStateQuery),
      (state) => state.units.some((unit) => unit.status === 'running'),
    );
    await plan.cancel();
    expect((await plan.result()).outcome).toBe('stopped');
    await saveHistory(ship.kit.env.client, planId, 'plan/cancelled');
  });

  // plan/invalid-failed.json (recorded before the plan-failure-settles patch: a raw workflow
  // failure) is kept, not re-recorded: it proves the patch's old branch still replays.
  test('a plan whose dependencies form a cycle settles failed', async () => {
    const planId = `plan:${REPO}:record-cycle`;
    const plan = await start(planId, [
      { key: 'a', request: 'a', dependsOn: ['b'] },
      { key: 'b', request: 'b', dependsOn: ['a'] },
    ]);
    expect((await plan.result()).outcome).toBe('failed');
    await saveHistory(ship.kit.env.client, planId, 'plan/invalid-settled');
  });
});
