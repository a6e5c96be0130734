import { effectMarker } from '../activities/github/effects';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { findTemporalBinary } from '../infra/temporal-binaries';
import { awaitOutcome, composeMessage, deliverToThread } from '../infra/thread-client';
import { planWorkflowType, stopSignal, threadStateQuery, unitStateQuery, type ReplyTarget, type UnitState } from '../workflows/contracts';
import { resend } from '../cli/commands/resend';
import { runCli } from './helpers/cli';
import { testTemporalAddress } from './helpers/temporal';
import { REPO, startShipKit, type ShipKit } from './helpers/ship-kit';
import { waitUntil } from './helpers/wait';

jest.setTimeout(240_000);

/**
 * Issue 17 item 4 on the real server with the local GitHub: a write whose request GitHub
 * answers with a 502 (nothing applied) is retried, the retry finds no marker, and the write
 * ends `unconfirmed`. The unit lists it, says so on the PR, `units get` shows it, and
 * `switchboard resend` posts exactly one new copy under a new key, recorded as the operator's
 * decision: by the `resend` update while the unit runs, by `resendWorkflow` once it has closed.
 */
describe('unconfirmed writes are visible and resent only by an operator', () => {
  let ship: ShipKit;
  beforeAll(async () => {
    ship = await startShipKit('resend');
  });
  afterAll(async () => {
    await ship.close();
  });

  it('a lost review, then a lost final report: listed, announced, resent once each with a new key and the operator', async () => {
    const unitId = 'unit:acme/app:resend-lost-writes';
    const model = ship.model([
      {
        alternatives: [
          {
            when: { lastUserIncludes: 'of this unit)' },
            text: 'Looks right.',
            toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'The greeting reads well.', findings: [] } }],
          },
          {
            text: 'Adding the greeting.',
            toolCalls: [
              { name: 'bash', input: { command: 'echo "Hello." >> README.md' } },
              { name: 'submit_description', input: { title: 'Greet the reader', body: 'Adds a greeting line.' } },
            ],
          },
        ],
      },
      { text: 'Done.' },
    ]);
    const cli = (...args: string[]) => runCli(ship.kit, args);
    const issue = () => ship.github.state.repo('acme', 'app')!.issues.get(1)!;
    const withMarker = (bodies: Array<{ body: string }>, key: string) => bodies.filter((b) => b.body.includes(effectMarker(key)));

    // The review's POST is answered 502 without being applied: its retry finds no marker.
    ship.github.faults.serverErrors({ method: 'POST', path: '/pulls/1/reviews' }, 1);
    const unit = await ship.start({
      unitId,
      request: 'Add a greeting to the README',
      model,
      replyTarget: { kind: 'github', repo: REPO, pullRequest: 1 },
    });
    const reviewKey = (state: UnitState) => `${unitId}/review/${state.lastReview!.commitSha}`;
    const state = await waitUntil(
      () => unit.query(unitStateQuery),
      (s) => s.lastReview?.posted === 'unconfirmed',
      120_000,
    );
    const lost = reviewKey(state);
    expect(state.lastReview?.posted).toBe('unconfirmed');
    expect(state.unconfirmed).toEqual([
      expect.objectContaining({ kind: 'review', target: 'acme/app#1', effectKey: lost, reason: expect.stringMatching(/not sent again/) }),
    ]);
    expect(state.unconfirmed![0].text).toContain('The greeting reads well.');
    expect(issue().reviews).toHaveLength(0);
    // The notice on the PR (the unit's conversation) names it and the command.
    const notice = await waitUntil(
      async () => issue().comments.find((c) => c.body.includes('Could not confirm delivery of the review on acme/app#1')),
      Boolean,
      30_000,
    );
    expect(notice!.body).toContain(`switchboard resend ${unitId} ${lost}`);

    const shown = await cli('units', 'get', unitId);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('could not confirm delivery of the review on acme/app#1');
    expect(shown.stdout).toContain(`effect: ${lost}`);
    expect(shown.stdout).toContain('> ');
    expect(shown.stdout).toContain('The greeting reads well.');

    // A confirmed write and an unknown key are refused; nothing is written.
    // (In process: each CLI start costs seconds on a loaded machine; the CLI's own lines are checked below.)
    const resendAs = (effectKey: string, by: string) => resend(ship.kit.client, ship.kit.taskQueue, unitId, { effectKey, by });
    await expect(resendAs(`${unitId}/pr/open`, 'alice')).rejects.toThrow(
      /resend refused: cannot resend .*pr\/open.*it was confirmed \(it arrived\)/,
    );
    await expect(resendAs(`${unitId}/nothing`, 'alice')).rejects.toThrow(
      /not an unconfirmed write of this workflow\. Unconfirmed writes: .*review/,
    );

    // The operator's resend: one new review under the new key, the decision in the unit's state.
    const resent = await cli('resend', unitId, lost, '--by', 'alice', '--reason', 'missing on the PR');
    expect(resent.stderr).toBe('');
    expect(resent.stdout).toMatch(
      new RegExp(`resent the review on acme/app#1 as ${escape(lost)}/resend-1: confirmed; decided by alice at `),
    );
    expect(issue().reviews).toHaveLength(1);
    expect(withMarker(issue().reviews, `${lost}/resend-1`)).toHaveLength(1);
    const after = await unit.query(unitStateQuery);
    expect(after.unconfirmed![0].resent).toEqual(
      expect.objectContaining({ by: 'alice', reason: 'missing on the PR', effectKey: `${lost}/resend-1`, status: 'confirmed' }),
    );
    await expect(resendAs(lost, 'bob')).rejects.toThrow(/alice already resent it at .* as .*resend-1 \(confirmed\)/);
    expect(issue().reviews).toHaveLength(1);

    // The final report's reply is lost while the unit settles: it closes listing it.
    ship.github.faults.serverErrors({ method: 'POST', path: '/issues/1/comments' }, 1);
    await unit.signal(stopSignal, { by: 'tester' });
    const record = await unit.result();
    const report = `${unitId}/report`;
    expect(record.unconfirmed?.map((w) => [w.kind, w.effectKey, Boolean(w.resent)])).toEqual([
      ['review', lost, true],
      ['reply', report, false],
    ]);
    // The report names earlier writes still unconfirmed; the review was resent, so none.
    expect(record.report).not.toContain('Could not confirm');
    expect(withMarker(issue().comments, report)).toHaveLength(0);
    expect(issue().comments.some((c) => c.body.includes(`Could not confirm delivery of the reply to acme/app#1 (effect ${report})`))).toBe(
      true,
    );
    const closed = await cli('units', 'get', unitId);
    expect(closed.stdout).toContain(`resend: switchboard resend ${unitId} ${report}`);

    // Closed: the resend is a resendWorkflow on resend:<new key>, and its record is the decision.
    const late = await cli('resend', unitId, report, '--by', 'bob');
    expect(late.stderr).toBe('');
    expect(late.stdout).toMatch(/resent the reply to acme\/app#1 as .*\/report\/resend-1: confirmed; decided by bob/);
    expect(withMarker(issue().comments, `${report}/resend-1`)).toHaveLength(1);
    expect(withMarker(issue().comments, `${report}/resend-1`)[0].body).toContain('stopped');
    const decided = await cli('units', 'get', unitId);
    expect(decided.stdout).toMatch(new RegExp(`resent by bob at .* as ${escape(report)}/resend-1: confirmed`));
    const twice = await cli('resend', unitId, report, '--by', 'carol');
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/resend refused: bob already resent .*report at .* \(confirmed\)/);
    expect(withMarker(issue().comments, `${report}/resend-1`)).toHaveLength(1);
  });

  it("a run's lost answer: its thread lists it, runs get shows it, the thread says so, and the resend goes through the thread", async () => {
    // A conversation on an issue of its own, so the counts below are this test's.
    const created = await fetch(`${ship.github.apiUrl}/repos/${REPO}/issues`, {
      method: 'POST',
      headers: { authorization: 'token write-token', 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'A question' }),
    });
    const { number } = (await created.json()) as { number: number };
    const target: ReplyTarget = { kind: 'github', repo: REPO, pullRequest: number };
    const threadId = `thread:cli:${randomUUID()}`;
    const model = ship.kit.script('resend-answer', [{ text: 'The answer is 42.' }]);
    const messageId = `cli:${randomUUID()}`;
    // Only the answer's POST (found by its key in the body) is lost; the status card is not.
    ship.github.faults.serverErrors({ method: 'POST', path: `/issues/${number}/comments`, bodyIncludes: '/answer' }, 1);
    await deliverToThread(ship.kit.client, ship.kit.taskQueue, {
      threadId,
      input: { threadId, replyTarget: target },
      message: {
        messageId,
        text: composeMessage('what is the answer?', { agent: 'general', model }),
        requester: { id: 'tester', surface: 'cli' },
        replyTarget: target,
      },
      summary: 'resend test thread',
    });
    const runId = (await awaitOutcome(ship.kit.client, threadId, messageId))!.runId!;
    const answerKey = `${runId}/answer`;
    const thread = ship.kit.client.workflow.getHandle(threadId);
    const state = await waitUntil(
      () => thread.query(threadStateQuery),
      (s) => (s.unconfirmed?.length ?? 0) > 0,
      60_000,
    );
    expect(state.unconfirmed).toEqual([
      expect.objectContaining({ kind: 'reply', effectKey: answerKey, target: `acme/app#${number}`, text: 'The answer is 42.' }),
    ]);
    const comments = () => ship.github.state.repo('acme', 'app')!.issues.get(number)!.comments;
    await waitUntil(
      async () =>
        comments().some((c) => c.body.includes(`Could not confirm delivery of the reply to acme/app#${number} (effect ${answerKey})`)),
      Boolean,
      30_000,
    );
    expect(comments().filter((c) => c.body.includes(effectMarker(answerKey)))).toHaveLength(0);

    const shown = await runCli(ship.kit, ['runs', 'get', runId]);
    expect(shown.stdout).toContain(`could not confirm delivery of the reply to acme/app#${number}`);
    expect(shown.stdout).toContain(`resend: switchboard resend ${runId} ${answerKey}`);
    expect(shown.stdout).toContain('  > The answer is 42.');

    // By hand with the `temporal` CLI, as docs/operations.md says: the list, and a refusal in words.
    const listed = await temporalCli(['workflow', 'query', '--workflow-id', threadId, '--name', 'uncertainWrites', '--output', 'json']);
    expect(listed.stdout).toContain(answerKey);
    const refused = await temporalCli([
      'workflow',
      'update',
      'execute',
      '--workflow-id',
      threadId,
      '--name',
      'resend',
      '--input',
      JSON.stringify({ effectKey: `${runId}/nothing`, by: 'dana' }),
    ]);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout + refused.stderr).toContain('it is not an unconfirmed write of this workflow');

    const resent = await runCli(ship.kit, ['resend', runId, answerKey, '--by', 'dana']);
    expect(resent.stderr).toBe('');
    expect(resent.stdout).toMatch(/resent the reply to .* as .*\/answer\/resend-1: confirmed; decided by dana/);
    const copies = comments().filter((c) => c.body.includes(effectMarker(`${answerKey}/resend-1`)));
    expect(copies).toHaveLength(1);
    expect(copies[0].body).toContain('The answer is 42.');
    expect((await thread.query(threadStateQuery)).unconfirmed![0].resent).toMatchObject({ by: 'dana', status: 'confirmed' });
    const decided = await runCli(ship.kit, ['runs', 'get', runId, '--json']);
    expect(JSON.parse(decided.stdout).unconfirmed[0].resent).toMatchObject({ by: 'dana', effectKey: `${answerKey}/resend-1` });
  });

  /** A conversation on an issue of its own, so the counts of a test are its own. */
  const conversation = async (title: string): Promise<{ number: number; target: ReplyTarget }> => {
    const created = await fetch(`${ship.github.apiUrl}/repos/${REPO}/issues`, {
      method: 'POST',
      headers: { authorization: 'token write-token', 'content-type': 'application/json' },
      body: JSON.stringify({ title }),
    });
    const { number } = (await created.json()) as { number: number };
    return { number, target: { kind: 'github', repo: REPO, pullRequest: number } };
  };
  const commentsOn = (number: number) => ship.github.state.repo('acme', 'app')!.issues.get(number)!.comments;

  it("a run's own tool write and its card post, lost: the issue is listed with its text, said in the conversation and resent through the thread; the card is posted afresh by the next update", async () => {
    const { number, target } = await conversation('File it for me');
    const threadId = `thread:cli:${randomUUID()}`;
    const model = ship.kit.script('resend-tool-write', [
      {
        text: 'Filing.',
        toolCalls: [{ name: 'github_issue_create', input: { repo: REPO, title: 'Lost in flight', body: 'It fails one run in ten.' } }],
      },
      { text: 'Filed, as far as I can tell.' },
    ]);
    // The issue's POST and the card's first POST are answered 502 unapplied: their retries find no marker.
    ship.github.faults.serverErrors({ method: 'POST', path: `/repos/${REPO}/issues`, bodyIncludes: '/github_issue_create/' }, 1);
    ship.github.faults.serverErrors({ method: 'POST', path: `/issues/${number}/comments`, bodyIncludes: '/card/0' }, 1);
    const messageId = `cli:${randomUUID()}`;
    await deliverToThread(ship.kit.client, ship.kit.taskQueue, {
      threadId,
      input: { threadId, replyTarget: target },
      message: {
        messageId,
        text: composeMessage('file the flake', { agent: 'general', model }),
        requester: { id: 'tester', surface: 'cli' },
        replyTarget: target,
      },
      summary: 'resend test thread',
    });
    const runId = (await awaitOutcome(ship.kit.client, threadId, messageId))!.runId!;
    const record = await ship.kit.result(runId);
    const issueKey = `${runId}/github_issue_create/1.0`;
    expect(record.unconfirmed).toEqual([
      expect.objectContaining({ kind: 'issue', effectKey: issueKey, target: REPO, text: 'Lost in flight\n\nIt fails one run in ten.' }),
    ]);
    expect(record.toolCalls).toEqual([expect.objectContaining({ name: 'github_issue_create', ok: false })]);
    // The thread lists it on (a run's writes are resent where its answer is), and the conversation was told.
    const state = await waitUntil(
      () => ship.kit.client.workflow.getHandle(threadId).query(threadStateQuery),
      (s) => (s.unconfirmed ?? []).some((w) => w.effectKey === issueKey),
    );
    expect(state.unconfirmed).toHaveLength(1);
    expect(
      commentsOn(number).filter((c) => c.body.includes(`Could not confirm delivery of the new issue in ${REPO} (effect ${issueKey})`)),
    ).toHaveLength(1);
    const issuesWith = (key: string) =>
      [...ship.github.state.repo('acme', 'app')!.issues.values()].filter((i) => i.body.includes(effectMarker(key)));
    expect(issuesWith(issueKey)).toHaveLength(0);
    // The card's first post was lost: the next update posted it afresh, once, and the last one is final.
    const cards = (key: string) => commentsOn(number).filter((c) => c.body.includes(effectMarker(key)));
    expect(cards(`${runId}/card/0`)).toHaveLength(0);
    expect(cards(`${runId}/card/1`)).toHaveLength(1);
    expect(cards(`${runId}/card/1`)[0].body).toContain('Completed');

    const resent = await runCli(ship.kit, ['resend', runId, issueKey, '--by', 'dana']);
    expect(resent.stderr).toBe('');
    expect(resent.stdout).toMatch(/resent the new issue in acme\/app as .*\/resend-1: confirmed; decided by dana/);
    expect(issuesWith(`${issueKey}/resend-1`)).toEqual([expect.objectContaining({ title: 'Lost in flight' })]);
  });

  // A plan with its units' own threads keeps its picture in one edited card and replies once, with
  // its report (issue 35): that reply is the one lost here.
  it("a plan's lost reply: listed by the plan, said in the conversation, resent by resendWorkflow once the plan has closed", async () => {
    const { number, target } = await conversation('Plan the notes');
    const planId = `plan:${REPO}:resend-${randomUUID().slice(0, 6)}`;
    const model = ship.model([
      {
        alternatives: [
          {
            when: { lastUserIncludes: 'of this unit)' },
            text: 'Good.',
            toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Good.', findings: [] } }],
          },
          { text: 'Notes.', toolCalls: [{ name: 'bash', input: { command: 'echo "notes" > plan-notes.txt' } }] },
        ],
      },
      { text: 'Done.' },
    ]);
    ship.github.faults.serverErrors({ method: 'POST', path: `/issues/${number}/comments`, bodyIncludes: `${planId}/report` }, 1);
    const plan = await ship.kit.client.workflow.start(planWorkflowType, {
      workflowId: planId,
      taskQueue: ship.kit.taskQueue,
      args: [
        {
          planId,
          repo: REPO,
          replyTarget: target,
          requester: { id: 'tester', surface: 'cli' },
          model,
          mergeAuthority: true,
          units: [{ key: 'notes', request: 'Add the plan notes' }],
        },
      ],
    });
    const record = await plan.result();
    expect(record.outcome).toBe('completed');
    expect(record.unconfirmed).toEqual([expect.objectContaining({ kind: 'reply', effectKey: `${planId}/report` })]);
    const lost = record.unconfirmed![0];
    expect(
      commentsOn(number).filter((c) =>
        c.body.includes(`Could not confirm delivery of the reply to acme/app#${number} (effect ${lost.effectKey})`),
      ),
    ).toHaveLength(1);
    const resent = await runCli(ship.kit, ['resend', planId, lost.effectKey, '--by', 'dana']);
    expect(resent.stderr).toBe('');
    expect(resent.stdout).toMatch(/: confirmed; decided by dana/);
    const copies = commentsOn(number).filter((c) => c.body.includes(effectMarker(`${lost.effectKey}/resend-1`)));
    expect(copies).toHaveLength(1);
    expect(copies[0].body).toContain(lost.text);
  });
});

/** The `temporal` CLI against the suite's server; a non-zero exit is returned. */
async function temporalCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const binary = findTemporalBinary('cli')!.path;
  try {
    const { stdout, stderr } = await promisify(execFile)(binary, [...args, '--address', testTemporalAddress()]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\#]/g, '\\$&');
}
