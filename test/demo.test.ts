import { Client, Connection } from '@temporalio/client';
import { processesUsing } from '../emulators/demo/cleanup';
import { startDemo, type Demo, type ReadyReport } from '../emulators/demo/demo';
import { reviewThreadLines } from '../emulators/demo/ready';
import { DEMO, fullRepoName } from '../emulators/demo/session';
import { git } from '../emulators/local-github/git-store';
import { testTemporalAddress, uniqueTaskQueue } from './helpers/temporal';
import { waitUntil } from './helpers/wait';
import { startOtlpReceiver, traceTree, type OtlpReceiver } from './helpers/otlp-receiver';

jest.setTimeout(180_000);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm run demo, driven on the suite’s Temporal', () => {
  let demo: Demo | undefined;
  let receiver: OtlpReceiver | undefined;
  afterAll(async () => {
    await demo?.stop();
    await receiver?.close();
  });

  it('plays the whole loop to the ready report, and its stop leaves nothing running', async () => {
    // Its Switchboard exports traces (OTLP/JSON here) to a local receiver, and every line it prints is kept.
    receiver = await startOtlpReceiver();
    const printed: string[] = [];
    demo = await startDemo({
      temporalAddress: testTemporalAddress(),
      taskQueue: uniqueTaskQueue('demo'),
      print: (line) => printed.push(line),
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '200' },
    });
    const ready: ReadyReport = await demo.ready(150_000);
    const repo = demo.github.state.repo(DEMO.repo.owner, DEMO.repo.name)!;
    const pull = repo.issues.get(ready.pullRequest)!;

    // The PR exists, on the unit's branch, with the fix and the fix for the finding.
    expect(pull).toMatchObject({ state: 'open', title: 'Apply the invoice discount as a percentage' });
    expect(pull.pull!.head).toBe('switchboard/acme/invoices-fix-the-failing-invoice-total-test');
    const total = git(repo.dir, ['show', `${ready.headSha}:src/total.js`]);
    expect(total).toContain('Math.min(Math.max(discountPercent, 0), 100)');
    expect(total).toContain('subtotal(lines) * (1 - percent / 100)');
    expect(git(repo.dir, ['show', `${ready.headSha}:test/total.test.js`])).toContain('a discount is clamped to 0-100%');

    // A review with the finding was posted on the first head; the fix round pushed a new head, which the second review approved.
    // (The third review GitHub holds is the single-comment one its reply on the finding's thread made.)
    const verdicts = pull.reviews.filter((review) => review.body.startsWith('**Verdict'));
    expect(verdicts).toHaveLength(2);
    expect(pull.reviews).toHaveLength(3);
    const [first, second] = verdicts;
    expect(first.body).toContain('Verdict: changes requested');
    expect(first.body).toContain('A discount above 100% makes the total negative');
    expect(first.commitId).not.toBe(ready.headSha);
    expect(git(repo.dir, ['log', '--format=%s', `${first.commitId}..${ready.headSha}`])).toContain('Clamp the invoice discount to 0-100%');
    expect(second).toMatchObject({ commitId: ready.headSha });
    expect(second.body).toContain('Verdict: approve');
    expect(demo.github.state.countWrites('push', fullRepoName)).toBe(2);
    expect(demo.github.state.countWrites('pull_request.create', fullRepoName)).toBe(1);

    // CI really ran the repository's tests on both heads, and the check run on the ready head passed.
    expect(demo.ci.runs.map((run) => [run.sha, run.conclusion])).toEqual([
      [first.commitId, 'success'],
      [ready.headSha, 'success'],
    ]);
    expect(demo.ci.runs[1].log).toMatch(/# pass 4/);
    expect(repo.checkRuns.get(ready.headSha)).toEqual([
      expect.objectContaining({ name: 'test', status: 'completed', conclusion: 'success' }),
    ]);

    // The ready report is in the Slack thread, after a status card for each of the four runs.
    expect(ready.message.text).toBe(`PR #${ready.pullRequest} on ${fullRepoName} is ready: the review approves and checks are green.`);
    const thread = demo.slack.state.thread(DEMO.channel.id, demo.threadTs);
    const cards = thread.filter((message) => message.metadata?.event_type === 'switchboard_card');
    expect(cards.map((card) => card.text)).toEqual([
      expect.stringMatching(/^coding .*Completed/),
      expect.stringMatching(/^review .*Completed/),
      expect.stringMatching(/^coding .*Completed/),
      expect.stringMatching(/^review .*Completed/),
    ]);
    expect(thread.indexOf(ready.message)).toBe(thread.length - 1);

    // The demo listed the thread, the unit and its four runs (visibility may lag behind the ready report).
    const kinds = await waitUntil(
      async () => demo!.workflows.map((workflow) => (workflow.kind === 'run' ? workflow.agent : workflow.kind)).sort(),
      (seen) => seen.length === 6,
      20_000,
    );
    expect(kinds).toEqual(['coding', 'coding', 'review', 'review', 'thread', 'unit']);

    // The first review's finding sits on its line, with the clamp as a suggestion; the fix round answered it
    // in its thread, and the second review confirmed the fix, so the unit resolved the thread (issue 33).
    const [finding, reply] = pull.reviewComments;
    expect(pull.reviewComments).toEqual([
      expect.objectContaining({
        reviewId: first.id,
        path: 'src/total.js',
        line: 9,
        side: 'RIGHT',
        suggestion: expect.stringContaining('Math.min('),
        resolvedBy: 'switchboard[bot]',
      }),
      expect.objectContaining({ inReplyTo: finding.id, user: 'switchboard[bot]', path: 'src/total.js' }),
    ]);
    expect(reply.body).toMatch(new RegExp(`^Fixed in ${ready.headSha.slice(0, 12)}\\.\\n\\nThe discount is clamped to 0-100%`));
    // What the demo prints of it.
    expect(reviewThreadLines(pull)).toEqual([
      '  Thread on src/total.js:9 (resolved by switchboard[bot]): **minor** · A discount above 100% makes the total negative',
      `    ↳ switchboard[bot]: Fixed in ${ready.headSha.slice(0, 12)}.`,
    ]);

    // The second story: Ana merges PR #1, files issue #2 and assigns it to the bot; its unit's PR fixes the issue,
    // reviewed on its lines with a suggestion, and the issue hears that it is ready.
    const story = await demo.issueStory(ready.pullRequest, 120_000);
    expect(repo.issues.get(ready.pullRequest)!.pull!.merged).toBe(true);
    const issue = repo.issues.get(story.issue)!;
    const fixing = repo.issues.get(story.pullRequest)!;
    expect(fixing).toMatchObject({ state: 'open', title: DEMO.issue.title });
    expect(fixing.pull!.draft).toBe(false);
    expect(fixing.body).toContain(`Fixes #${story.issue}`);
    expect(fixing.body).toContain('as AGENTS.md asks');
    expect(fixing.reviews).toEqual([expect.objectContaining({ commitId: story.headSha })]);
    expect(fixing.reviews[0].body).toContain('Verdict: approve');
    expect(story.inline).toEqual([
      expect.objectContaining({
        path: 'src/format.js',
        line: 7,
        side: 'RIGHT',
        suggestion: expect.stringContaining("toLocaleString('en-US')"),
      }),
    ]);
    expect(story.readyText).toBe(`PR #${story.pullRequest} on ${fullRepoName} is ready: the review approves and checks are green.`);
    const ours = issue.comments.filter((comment) => comment.user === 'switchboard[bot]').map((comment) => comment.body);
    expect(ours.filter((body) => body.startsWith('**coding**'))).toEqual([expect.stringContaining('Instructions: AGENTS.md')]);
    expect(demo.ci.runs.find((run) => run.sha === story.headSha)?.conclusion).toBe('success');

    // A signed session link was printed for every workflow of both stories, and each opens its page.
    const issueThread = `thread:gh:${fullRepoName}#${story.issue}`;
    const linked = await waitUntil(
      async () =>
        [...printed.join('\n').matchAll(/^ {2}\S.* (\S+)\n {15}session: (\S+)$/gm)].map((match) => ({ id: match[1], url: match[2] })),
      (links) =>
        links.some((link) => link.id === story.unitId) &&
        links.filter((link) => link.id.startsWith(`run:${issueThread}`) || link.id.startsWith(`${story.unitId}/`)).length >= 2,
      30_000,
    );
    expect(linked.map((link) => link.id)).toEqual(expect.arrayContaining([demo.threadId, ready.unitId, issueThread, story.unitId]));
    // (A thread's own page is issue 32's to make answer: the runs' and units' pages open.)
    for (const link of linked.filter((each) => !each.id.startsWith('thread:')))
      expect((await fetch(link.url, { signal: AbortSignal.timeout(20_000) })).status).toBe(200);

    // One trace of the first unit, from Ana's Slack mention through the unit's coding and review runs, shown as the receiver got it.
    const unitTrace = await waitUntil(
      async () =>
        receiver!.spans.find(
          (span) => span.name === 'RunWorkflow:agentRunWorkflow' && String(span.attributes.workflowId).startsWith(`${ready.unitId}/`),
        )?.traceId,
      (traceId) => traceId !== undefined,
      30_000,
    );
    const tree = traceTree(receiver.spans, unitTrace!);
    console.log(`The trace of the demo's first unit (${unitTrace!}), as the local OTLP receiver got it:\n${tree}`);
    expect(tree.split('\n')[0]).toMatch(/^POST \/slack\/events /);
    expect(tree).toContain('StartWorkflow:shipUnitWorkflow');
    expect(tree.match(/RunWorkflow:agentRunWorkflow/g)?.length).toBe(4);
    expect(tree).toContain('sandbox exec');
    expect(receiver.requests['application/json']).toBeGreaterThan(0);

    // Stop: the unit settles (releasing its workspaces), Switchboard exits, no sandbox is left.
    const { dir, productPid } = demo;
    const unitId = ready.unitId;
    await demo.stop();
    demo = undefined;
    expect(alive(productPid)).toBe(false);
    const settled = await waitUntil(
      () => sharedClientDescribe(unitId),
      (status) => status !== 'RUNNING',
      20_000,
    );
    expect(settled).toBe('COMPLETED');
    await waitUntil(
      async () => processesUsing(dir),
      (left) => left.length === 0,
      20_000,
    );
  });
});

async function sharedClientDescribe(workflowId: string): Promise<string> {
  const connection = await Connection.connect({ address: testTemporalAddress() });
  try {
    return (await new Client({ connection }).workflow.getHandle(workflowId).describe()).status.name;
  } finally {
    await connection.close();
  }
}
