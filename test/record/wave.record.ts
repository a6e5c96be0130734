/**
 * Records histories that take this wave's new `patched()` branches (issues 25 and 27; run with
 * `npm run record-histories -- -t wave`, see docs/versioning.md): routing by rule and by the
 * classifier, a `debug` child that inherits its parent's tool results and lists the workspace,
 * a run calling an MCP server's tool, an automatic review whose run brings its repository along
 * (instructions and setup), a thread seeded with an issue, and a steer refused by the admission.
 * Each scenario names the patches its histories hold; none overwrites an older history.
 */
import { type Client } from '@temporalio/client';
import { createGitHubActivities, createGitHubIdentities } from '../../activities/github';
import { sendToThread } from '../../infra/thread-client';
import { prEventSignal, runStatusQuery, stopSignal, threadStateQuery, unitStateQuery, type ThreadMessage } from '../../workflows/contracts';
import { saveHistory } from '../helpers/history';
import { startHttpMcpServer, type HttpMcpServer } from '../helpers/mcp-servers';
import { startRunKit, type RunKit } from '../helpers/run-kit';
import { REPO, startShipKit, type ShipKit } from '../helpers/ship-kit';
import { waitUntil } from '../helpers/wait';

jest.setTimeout(240_000);

/** A second repository of the ship kit's GitHub: instructions, and settings with setup commands and review triggers. */
const TOOLS = 'acme/tools';
const TOOLS_SETTINGS = `review:
  triggers: [opened, review_requested]
  debounceSeconds: 0
setup:
  commands:
    - echo "installing the dependencies"
  timeoutSeconds: 60
`;

const script = (name: string) => `scripted:kit/${name}.yaml`;

describe('wave patches: routing, roles, repository context, issues, steers', () => {
  let ship: ShipKit;
  const client = (): Client => ship.kit.env.client;
  const alice = { id: 'github:alice', surface: 'github' as const, githubRole: 'write' as const };

  beforeAll(async () => {
    ship = await startShipKit('record-wave', {
      agents: {
        entries: {
          review: { model: script('wave-review') },
          research: { model: script('wave-research') },
          // An issue's unit codes slowly, so the recorder stops it once the thread has started it.
          coding: { model: script('wave-slow') },
        },
        routing: { classifier: { enabled: true, model: script('wave-classifier') } },
      },
    });
    ship.github.createRepo('acme', 'tools', {
      'README.md': '# tools\n',
      'AGENTS.md': 'Run the checks before you commit.\n',
      '.switchboard.yml': TOOLS_SETTINGS,
    });
    ship.kit.script('wave-review', [
      {
        text: 'Looks right.',
        toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Adds a file.', findings: [] } }],
      },
      { text: 'Reviewed.' },
    ]);
    ship.kit.script('wave-classifier', [{ text: '{"agent": "research", "why": "it asks what the web knows"}' }]);
    ship.kit.script('wave-research', [{ text: 'Here is what the sources say.' }]);
    ship.kit.script('wave-slow', [
      { text: 'Working slowly.', toolCalls: [{ name: 'bash', input: { command: 'sleep 3391' } }] },
      { text: 'never' },
    ]);
  });
  afterAll(async () => ship?.close());

  const person = () =>
    createGitHubActivities({
      identities: createGitHubIdentities({ apiUrl: ship.github.apiUrl, gitUrl: ship.github.gitUrl, tokens: { write: 'write-token' } }),
    });
  const send = (threadId: string, message: ThreadMessage) =>
    sendToThread(client(), ship.kit.taskQueue, {
      threadId,
      input: { threadId, replyTarget: message.replyTarget ?? { kind: 'cli' } },
      message,
      summary: 'wave recorder',
    });
  const settled = (threadId: string, outcomes: number) =>
    waitUntil(
      () => client().workflow.getHandle(threadId).query(threadStateQuery),
      (state) => state.currentRunId === undefined && state.outcomes.length === outcomes,
    );

  // Patches: routing-finds-agents (the review-request rule), thread-repo-settings (a pull request's repository is in play).
  test('wave: a thread routed by a rule to review on a pull request', async () => {
    ship.github.commit(REPO, 'routed', { 'routed.txt': 'routed\n' });
    const pr = await person().openOrUpdatePullRequest({ repo: REPO, head: 'routed', base: 'main', title: 'R', body: 'r', effectKey: 'r' });
    const threadId = `thread:gh:${REPO}#${pr.number}`;
    const replyTarget = { kind: 'github' as const, repo: REPO, pullRequest: pr.number! };
    const outcome = await send(threadId, { messageId: `gh:${pr.number}:routed`, text: 'review this PR', requester: alice, replyTarget });
    expect(outcome).toMatchObject({ kind: 'run', agent: 'review' });
    expect((await ship.kit.result(outcome!.runId!)).outcome).toBe('completed');
    await settled(threadId, 1);
    await saveHistory(client(), threadId, 'thread/routed-by-rule');
  });

  // Patches: routing-finds-agents, and the classifier's model turn (agents.routing.classifier) in the thread.
  test('wave: a thread routed by the classifier', async () => {
    const threadId = 'thread:cli:record-wave-classifier';
    const outcome = await send(threadId, {
      messageId: 'cli:record-wave-classifier:1',
      text: 'what do people say about the tradeoffs between them',
      requester: { id: 'tester', surface: 'cli' },
    });
    expect(outcome).toMatchObject({ kind: 'run', agent: 'research' });
    const record = await ship.kit.result(outcome!.runId!);
    expect(record.usage[0]).toMatchObject({ purpose: 'routing' });
    await settled(threadId, 1);
    await saveHistory(client(), threadId, 'thread/routed-by-classifier');
  });

  // Patches: debug-inherits-tool-results (the parent's), find-files-newest-ls-marks-folders (the child's find_files and list_directory).
  test('wave: a debug child that inherits tool results and lists the workspace', async () => {
    const symptom = 'SIGSEGV in parse_header at frame 0x2f';
    // The debug child starts from the parent's two assistant turns: its own script begins at its third.
    const debug = ship.kit.script('wave-debug', [
      { text: 'inherited' },
      { text: 'inherited' },
      {
        text: 'Looking around.',
        toolCalls: [
          { name: 'find_files', input: { glob: '**/*.txt' } },
          { name: 'list_directory', input: {} },
        ],
      },
      { text: 'Diagnosis from what I inherited: {{lastToolResult:bash}}' },
    ]);
    const parent = ship.kit.script('wave-debug-parent', [
      {
        text: 'Running the tests.',
        toolCalls: [{ name: 'bash', input: { command: `mkdir -p src && echo x > src/a.txt && echo "${symptom}"; exit 139` } }],
      },
      {
        text: 'Asking debug.',
        toolCalls: [{ name: 'task', input: { agent_type: 'debug', name: 'why', prompt: 'find out why', model: debug, mode: 'sync' } }],
      },
      { text: 'Debug said: {{lastToolResult:task}}' },
    ]);
    const { runId } = await ship.kit.start('the parser crashes; find out why', { agent: 'coding', model: parent });
    const record = await ship.kit.result(runId);
    expect(record.children.map((child) => [child.agent, child.outcome])).toEqual([['debug', 'completed']]);
    const child = await ship.kit.result(record.children[0].workflowId);
    expect(child.finalText).toContain(symptom);
    expect(child.toolCalls.map((call) => [call.name, call.ok])).toEqual([
      ['find_files', true],
      ['list_directory', true],
    ]);
    await saveHistory(client(), runId, 'run/debug-inherits-tool-results');
    await saveHistory(client(), record.children[0].workflowId, 'run/debug-child-listings');
  });

  // Patches: thread-repo-settings (the thread reads .switchboard.yml) on an automatic review; its
  // run: run-repo-context (AGENTS.md into the prompt, the setup command run in the checkout).
  test('wave: an automatic review whose run brings its repository along', async () => {
    const headSha = ship.github.commit(TOOLS, 'feature', { 'feature.txt': 'a feature\n' });
    const pr = await person().openOrUpdatePullRequest({
      repo: TOOLS,
      head: 'feature',
      base: 'main',
      title: 'F',
      body: 'f',
      effectKey: 'f',
    });
    const threadId = `thread:gh:${TOOLS}#${pr.number}`;
    const replyTarget = { kind: 'github' as const, repo: TOOLS, pullRequest: pr.number! };
    const outcome = await send(threadId, {
      messageId: `github:opened-${pr.number}`,
      text: '',
      requester: alice,
      replyTarget,
      review: { trigger: 'opened', headSha, debounceSeconds: 0 },
    });
    expect(outcome).toMatchObject({ kind: 'run', agent: 'review' });
    const record = await ship.kit.result(outcome!.runId!);
    expect(record.outcome).toBe('completed');
    const status = await client().workflow.getHandle(record.runId).query(runStatusQuery);
    expect(status).toMatchObject({ instructions: ['AGENTS.md'], setup: { state: 'ran', exitCode: 0 } });
    await settled(threadId, 1);
    await saveHistory(client(), threadId, 'thread/auto-review');
    await saveHistory(client(), record.runId, 'run/repo-context');
  });

  // Patches: thread-seeds-issue-units and thread-repo-settings (the thread's); unit-repo-settings (its unit's).
  test('wave: a thread seeded with an issue starts its unit', async () => {
    const created = await fetch(`${ship.github.apiUrl}/repos/${TOOLS}/issues`, {
      method: 'POST',
      headers: { authorization: 'token write-token', 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Add a changelog', body: 'We need a CHANGELOG.md.' }),
    });
    const issue = (await created.json()) as { number: number };
    const threadId = `thread:gh:${TOOLS}#${issue.number}`;
    const replyTarget = { kind: 'github' as const, repo: TOOLS, pullRequest: issue.number, issue: true };
    const outcome = await send(threadId, {
      messageId: `github:assigned-${issue.number}`,
      text: `agent:ship Issue #${issue.number}: Add a changelog`,
      requester: alice,
      replyTarget,
      seed: { issue: issue.number, trigger: 'assigned' },
    });
    expect(outcome).toMatchObject({ kind: 'unit' });
    const unitId = outcome!.unitId!;
    const unit = client().workflow.getHandle(unitId);
    await waitUntil(
      () => unit.query(unitStateQuery),
      (state) => state.phase === 'coding',
    );
    await unit.signal(stopSignal, { reason: 'recorded', by: 'tester' });
    await unit.result();
    await settled(threadId, 1);
    await saveHistory(client(), threadId, 'thread/issue-seeded');
    await saveHistory(client(), unitId, 'unit/issue-seeded-stopped');
  });

  // Patches: unit-knows-own-reviews-by-marker (a person's review reaches the unit: it reads the
  // PR's reviews and tells its own, by their effect marker, from the person's), unit-repo-settings.
  test("wave: a unit takes a person's review apart from its own", async () => {
    const model = ship.kit.script('wave-unit', [
      {
        alternatives: [
          {
            when: { lastUserIncludes: 'of this unit)' },
            text: 'Fine.',
            toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Good.', findings: [] } }],
          },
          { when: { lastUserIncludes: 'reviewed' }, text: 'Slow.', toolCalls: [{ name: 'bash', input: { command: 'sleep 3392' } }] },
          {
            text: 'Changing.',
            toolCalls: [
              { name: 'bash', input: { command: 'echo "Hello." >> README.md' } },
              { name: 'submit_description', input: { title: 'Add a greeting', body: 'Adds a greeting line.' } },
            ],
          },
        ],
      },
      { text: 'done' },
    ]);
    const unitId = `unit:${REPO}:record-wave-reviews`;
    const unit = await ship.start({ unitId, request: 'Add a greeting to the README', model });
    const checking = await waitUntil(
      () => unit.query(unitStateQuery),
      (state) => state.phase === 'checks',
      120_000,
    );
    const number = checking.pullRequest!;
    const posted = await fetch(`${ship.github.apiUrl}/repos/${REPO}/pulls/${number}/reviews`, {
      method: 'POST',
      headers: { authorization: 'token write-token', 'content-type': 'application/json' },
      body: JSON.stringify({ event: 'COMMENT', body: 'Please say who reviewed it.' }),
    });
    const review = (await posted.json()) as { id: number };
    await unit.signal(prEventSignal, { repo: REPO, number, kind: 'review', reviewState: 'commented', reviewId: review.id, actor: 'alice' });
    await waitUntil(
      () => unit.query(unitStateQuery),
      (state) => state.phase === 'findings' && Boolean(state.currentRun?.includes('/coding-2')),
    );
    await unit.signal(stopSignal, { reason: 'recorded', by: 'tester' });
    expect((await unit.result()).outcome).toBe('stopped');
    await saveHistory(client(), unitId, 'unit/persons-review-taken');
  });

  // Patches: thread-steer-admitted (a reply from a collaborator whose role does not admit them to
  // the run's agent is refused, not sent to the run). At the command line everyone is an operator,
  // so the conversation is a pull request's.
  test('wave: a steer refused to someone who did not ask for the run', async () => {
    ship.github.commit(REPO, 'steered', { 'steered.txt': 'steered\n' });
    const pr = await person().openOrUpdatePullRequest({ repo: REPO, head: 'steered', base: 'main', title: 'S', body: 's', effectKey: 's' });
    const threadId = `thread:gh:${REPO}#${pr.number}`;
    const replyTarget = { kind: 'github' as const, repo: REPO, pullRequest: pr.number! };
    const started = await send(threadId, {
      messageId: `gh:${pr.number}:1`,
      text: 'agent:coding wait a long time',
      requester: alice,
      replyTarget,
    });
    expect(started).toMatchObject({ kind: 'run', agent: 'coding' });
    const runId = started!.runId!;
    await waitUntil(
      () => client().workflow.getHandle(runId).query(runStatusQuery),
      (now) => now.phase === 'tools',
    );
    const refused = await send(threadId, {
      messageId: `gh:${pr.number}:2`,
      text: 'do something else',
      requester: { id: 'github:bob', surface: 'github', githubRole: 'read' },
      replyTarget,
      addressedToRun: true,
    });
    expect(refused).toMatchObject({ kind: 'refused', code: 'not_requester' });
    await client().workflow.getHandle(threadId).signal(stopSignal, { reason: 'recorded', by: 'tester' });
    expect((await ship.kit.result(runId)).outcome).toBe('stopped');
    await settled(threadId, 2);
    await saveHistory(client(), threadId, 'thread/steer-refused');
  });
});

describe('wave patches: MCP tools', () => {
  let kit: RunKit;
  let http: HttpMcpServer;
  beforeAll(async () => {
    http = await startHttpMcpServer();
    kit = await startRunKit('record-mcp', {
      mcp: {
        config: {
          servers: { remote: { transport: 'http', url: http.url, network: 'private', callTimeoutMs: 5_000, maxResultChars: 5_000 } },
          agents: { general: [{ server: 'remote', tools: ['add'] }] },
        },
      },
    });
  });
  afterAll(async () => {
    await kit?.close();
    await http?.close();
  });

  // No patch (MCP needs none: no earlier history has a profile with MCP servers); the discovery
  // and the call's commands are what this history proves.
  test('wave: a run that discovers and calls an MCP server tool', async () => {
    const model = kit.script('mcp', [
      { text: 'Adding.', toolCalls: [{ name: 'mcp__remote__add', input: { a: 2, b: 3 } }] },
      { text: 'The server says: {{lastToolResult:mcp__remote__add}}' },
    ]);
    const { runId } = await kit.start('add two and three', { agent: 'general', model });
    const record = await kit.result(runId);
    expect(record.mcp?.tools).toEqual(['mcp__remote__add']);
    expect(record.finalText).toContain('2 + 3 = 5');
    await saveHistory(kit.env.client, runId, 'run/mcp-tools');
  });
});
