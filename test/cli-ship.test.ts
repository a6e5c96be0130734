import { randomUUID } from 'node:crypto';
import { createGitHubIdentities } from '../activities/github';
import { startLocalGitHub, type LocalGitHub } from '../emulators/local-github';
import { steerSignal, stopSignal, type ShipUnitInput, type UnitRecord, type UnitState } from '../workflows/contracts';
import { startRunKit, type RunKit } from './helpers/run-kit';
import { runCli } from './helpers/cli';

jest.setTimeout(120_000);

/** `switchboard ship` and `switchboard units`, as the real `bin/switchboard.js` process. */
describe('switchboard ship and units', () => {
  let kit: RunKit;
  let github: LocalGitHub;
  const repo = `cli-${randomUUID().slice(0, 8)}/app`;

  // The CLI refuses a unit its worker could not run: it sees the same GitHub credentials.
  const credentials: Record<string, string> = { GITHUB_READ_TOKEN: 'read-token', GITHUB_WRITE_TOKEN: 'write-token' };
  const switchboard = (...args: string[]) => switchboardWith(credentials, ...args);
  const switchboardWith = (extra: Record<string, string>, ...args: string[]) => runCli(kit, args, extra);

  beforeAll(async () => {
    github = await startLocalGitHub({ tokens: { read: ['read-token'], write: ['write-token'] } });
    const [owner, name] = repo.split('/');
    github.createRepo(owner, name, { 'README.md': '# app\n' });
    const identities = createGitHubIdentities({
      apiUrl: github.apiUrl,
      gitUrl: github.gitUrl,
      tokens: { read: 'read-token', write: 'write-token' },
    });
    kit = await startRunKit('cli-ship', { github: identities, ship: { checksPollSeconds: 600 } });
  });
  afterAll(async () => {
    await kit?.close();
    await github?.close();
  });

  it('starts the exact-PR unit, steers it on a second request, and shows its state and record', async () => {
    // A PR someone opened, which the unit takes over at review.
    github.commit(repo, 'feature', { 'NOTES.md': 'notes\n' }, 'Add notes');
    const opened = await fetch(`${github.apiUrl}/repos/${repo}/pulls`, {
      method: 'POST',
      headers: { authorization: 'token write-token', 'content-type': 'application/json' },
      body: JSON.stringify({ head: 'feature', base: 'main', title: 'Notes' }),
    });
    expect(opened.status).toBe(201);
    const model = kit.script('cli-ship-model', [
      { text: 'Reviewed.', toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Fine.', findings: [] } }] },
      { text: 'done' },
    ]);
    const unitId = `unit:${repo}#1`;

    const started = await switchboard('ship', `${repo}#1`, '--model', model);
    expect(started).toMatchObject({ code: 0, stdout: `Started ship unit ${unitId}.\n` });
    const handle = kit.env.client.workflow.getHandle(unitId);
    const history = await handle.fetchHistory();
    const payload = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
    const input = JSON.parse(Buffer.from(payload.data!).toString()) as ShipUnitInput;
    expect(input).toMatchObject({ unitId, repo, pullRequest: 1, replyTarget: { kind: 'cli' }, requester: { surface: 'cli' }, model });
    expect(input.request).toBeUndefined();

    // The unit reviews the PR and waits for CI; `units get` asks the running unit.
    let state: UnitState | undefined;
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 300))) {
      state = JSON.parse((await switchboard('units', 'get', unitId, '--json')).stdout) as UnitState;
      if (state.phase === 'checks') break;
    }
    expect(state).toMatchObject({ unitId, phase: 'checks', pullRequest: 1, lastReview: { verdict: 'approve', posted: 'confirmed' } });
    expect((await switchboard('units', 'get', unitId)).stdout).toMatch(
      new RegExp(
        `^${escape(unitId)}: checks, round 0 of 4, PR #1, last review approve on [0-9a-f]{12}, checks waiting, next checks poll at `,
      ),
    );

    // One unit per PR: a second `ship` for it is a steer.
    const again = await switchboard('ship', `${repo}#1`, 'Also add a changelog line');
    expect(again).toMatchObject({ code: 0, stdout: `Ship unit ${unitId} already exists; your request was sent to it as a steer.\n` });
    const signals = (await handle.fetchHistory()).events!.flatMap((event) =>
      event.workflowExecutionSignaledEventAttributes ? [event.workflowExecutionSignaledEventAttributes.signalName] : [],
    );
    expect(signals).toEqual([steerSignal.name]);

    await handle.signal(stopSignal, { reason: 'test over', by: 'tester' });
    const record = (await handle.result()) as UnitRecord;
    const settled = await switchboard('units', 'get', unitId, '--json');
    expect(JSON.parse(settled.stdout)).toEqual(record);
    expect(record).toMatchObject({ outcome: 'stopped', pullRequest: 1 });

    // Visibility lags a moment behind the unit's own attributes.
    let listed: Array<{ unitId: string; outcome?: string; pullRequest?: number }> = [];
    for (
      const deadline = Date.now() + 15_000;
      Date.now() < deadline && !listed.some((row) => row.outcome === 'stopped');
      await new Promise((resolve) => setTimeout(resolve, 300))
    ) {
      listed = JSON.parse((await switchboard('units', 'list', '--repo', repo, '--json')).stdout) as typeof listed;
    }
    expect(listed).toEqual([{ unitId, status: 'COMPLETED', phase: 'settle', pullRequest: 1, outcome: 'stopped' }]);
  });

  it('starts a generated task on the unit id its request names', async () => {
    const model = kit.script('cli-task-model', [{ text: 'Thinking.', delayMs: 30_000 }]);
    const started = await switchboard('ship', 'Add a changelog', '--repo', repo, '--model', model, '--json');
    const unitId = `unit:${repo}:add-a-changelog`;
    expect(started.code).toBe(0);
    expect(JSON.parse(started.stdout)).toEqual({ unitId, status: 'started' });
    const handle = kit.env.client.workflow.getHandle(unitId);
    await handle.signal(stopSignal, { reason: 'test over' });
    expect(await handle.result()).toMatchObject({ outcome: 'stopped' });
  });

  it('refuses a unit at once, naming the missing settings, when GitHub credentials or the model key are missing', async () => {
    const refused = await switchboardWith({}, 'ship', `${repo}#5`);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toBe(
      'Not started: a ship unit needs a GitHub read identity: set GITHUB_READ_TOKEN, or the App (github.appId, github.installationId, ' +
        'GITHUB_APP_PRIVATE_KEY); and a GitHub write identity: set GITHUB_WRITE_TOKEN, or the App (github.appId, ' +
        'github.installationId, GITHUB_APP_PRIVATE_KEY); and the key of anthropic:claude-sonnet-4-6: set ANTHROPIC_API_KEY.\n',
    );
    const noKey = await switchboard('ship', `${repo}#5`, '--model', 'openai:gpt-4.1');
    expect(noKey).toMatchObject({ code: 1, stderr: 'Not started: a ship unit needs the key of openai:gpt-4.1: set OPENAI_API_KEY.\n' });
    await expect(kit.env.client.workflow.getHandle(`unit:${repo}#5`).describe()).rejects.toThrow(/not found/i);
  });

  it('answers bad input with one line and exit code 1', async () => {
    const bad = await switchboard('ship', `${repo}#x`);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(`not a pull request reference: '${repo}#x' (expected owner/name#<number>, e.g. acme/app#7)\n`);
    const noRepo = await switchboard('ship', 'Add a changelog');
    expect(noRepo).toMatchObject({
      code: 1,
      stderr: 'a request needs its repository: --repo owner/name (or give a pull request as owner/name#<number>)\n',
    });
    const missing = await switchboard('units', 'get', `unit:${repo}#99`);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
