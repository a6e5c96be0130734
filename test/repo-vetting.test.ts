import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { localGitHubWithIdentities } from '../activities/github/test-support';
import { workspaceLayout } from '../activities/sandbox/workspace-layout';
import { type LocalGitHub } from '../emulators/local-github';
import { BOT, startSlackKit, type SlackKit } from './helpers/slack-kit';

jest.setTimeout(60_000);

const CHANNEL = 'C0VET';
const ALICE = 'U0ALICE';

/**
 * A run on a repository machine class names a bare owner/name; the thread vets it with one
 * GET on the run's own identity before any run (or workspace) exists, and a repository that
 * does not pass is refused in the thread in plain words with the explore spec's codes.
 */
describe('repository vetting, from a Slack mention to the local GitHub', () => {
  let kit: SlackKit;
  let github: LocalGitHub;
  let gitUrl: string;
  beforeAll(async () => {
    const local = await localGitHubWithIdentities();
    github = local.github;
    gitUrl = local.identities.gitUrl;
    github.createRepo('acme', 'open', { 'README.md': '# open\n' });
    // Private, and the read identity's installation does not include it: GitHub answers 404.
    github.createRepo('acme', 'hidden', { 'README.md': '# hidden\n' }, { private: true, hiddenFrom: ['read'] });
    kit = await startSlackKit('vetting', {}, { github: local.identities });
  });
  afterAll(async () => {
    await kit?.close();
    await github?.close();
  });

  const gets = (repo: string) => github.state.requests.filter((r) => r.method === 'GET' && r.path === `/repos/${repo}`).length;

  async function mention(text: string) {
    const said = await kit.slack.userSays({ channel: CHANNEL, user: ALICE, text: `<@${BOT}> ${text}` });
    const delivery = said.deliveries.find((d) => (d.envelope.event as { type: string }).type === 'app_mention')!;
    const threadId = `thread:slack:T0LOCAL:${CHANNEL}:${said.message.ts}`;
    const messageId = delivery.envelope.event_id as string;
    const outcome = await kit.until(async () => {
      const state = await kit.threadState(threadId).catch(() => undefined);
      return state?.outcomes.find((entry) => entry.messageId === messageId);
    }, `the thread's decision on ${messageId}`);
    return { ts: said.message.ts, threadId, outcome };
  }
  const replies = (ts: string) => kit.marked(CHANNEL, ts, 'switchboard_reply').map((message) => message.text);

  it('a private repository the read identity cannot see is refused as repo_not_visible, after one GET, with no run', async () => {
    const model = kit.script('never', [{ text: 'should not run' }]);
    const { ts, threadId, outcome } = await mention(`agent:explore model:scripted:${model} in acme/hidden: how is it built?`);
    const refusal =
      "acme/hidden is not visible to the read GitHub identity explore runs with, so nothing was run (repo_not_visible). Check the owner/name, or ask an operator to give Switchboard's GitHub identity access to acme/hidden.";
    expect(outcome).toMatchObject({ kind: 'refused', code: 'repo_not_visible', reply: refusal });
    await kit.until(() => replies(ts).length > 0, 'the refusal in the thread');
    expect(replies(ts)).toEqual([refusal]);
    expect(gets('acme/hidden')).toBe(1);
    expect((await kit.threadState(threadId)).runCount).toBe(0);
  });

  it('a write run vets with its own identity, which sees the repository, and runs', async () => {
    const model = kit.script('writer', [{ text: 'Seen with the write identity.' }]);
    const { outcome } = await mention(`agent:coding model:scripted:${model} in acme/hidden: say hello`);
    expect(outcome).toMatchObject({ kind: 'run', agent: 'coding' });
    const record = await kit.result(outcome.runId!);
    expect(record).toMatchObject({ outcome: 'completed', profile: { identity: 'write', repo: { value: 'acme/hidden' } } });
  });

  it("GitHub's silence is repo_unverified, and the same repository runs once GitHub answers", async () => {
    // The repository's own GET (the vet's), not the settings file below it that the thread reads first.
    github.faults.serverErrors({ method: 'GET', path: /^\/repos\/acme\/open$/ }, 1, 503);
    const model = kit.script('open', [{ text: 'The README says: open.' }]);
    const before = gets('acme/open');
    const first = await mention(`agent:explore model:scripted:${model} in acme/open: what does the README say?`);
    const refusal =
      "GitHub did not confirm acme/open (HTTP 503), so nothing was run (repo_unverified). Ask again in a moment; if it keeps happening, an operator can check Switchboard's GitHub connection.";
    expect(first.outcome).toMatchObject({ kind: 'refused', code: 'repo_unverified', reply: refusal });
    await kit.until(() => replies(first.ts).length > 0, 'the refusal in the thread');
    expect(replies(first.ts)).toEqual([refusal]);
    expect(gets('acme/open') - before).toBe(1);

    const second = await mention(`agent:explore model:scripted:${model} in acme/open: what does the README say?`);
    expect(second.outcome).toMatchObject({ kind: 'run', agent: 'explore' });
    const record = await kit.result(second.outcome.runId!);
    expect(record).toMatchObject({ outcome: 'completed', finalText: 'The README says: open.' });
    expect(record.profile).toMatchObject({ machine: 'repo-cold', identity: 'read', repo: { value: 'acme/open' } });
    expect(gets('acme/open') - before).toBe(2);
    await kit.until(() => replies(second.ts).length > 0, 'the answer in the thread');
    expect(replies(second.ts)).toEqual(['The README says: open.']);
  });

  it("a conductor's explore child clones the repository into a sandbox of its own, vetted first; a hidden one is refused as data", async () => {
    const child = kit.script('explore-child', [
      {
        text: 'Reading.',
        toolCalls: [{ name: 'bash', input: { command: `git clone -q ${gitUrl}/acme/open.git open && head -1 open/README.md` } }],
      },
      { text: 'The README begins: {{lastToolResult:bash}}' },
    ]);
    const conductor = (repo: string) =>
      kit.script(`conductor-${repo.replace('/', '-')}`, [
        {
          text: 'Delegating.',
          toolCalls: [
            {
              name: 'task',
              input: { agent_type: 'explore', name: 'readme', prompt: 'Read the README.', mode: 'sync', model: `scripted:${child}` },
            },
          ],
        },
        { text: 'The child said: {{lastToolResult:task}}' },
      ]);
    const before = gets('acme/open');
    const open = await mention(`agent:conductor model:scripted:${conductor('acme/open')} in acme/open: what does the README say?`);
    expect(open.outcome).toMatchObject({ kind: 'run', agent: 'conductor' });
    const record = await kit.result(open.outcome.runId!);
    expect(record.finalText).toContain('The README begins: exit code 0\n# open');
    const childRecord = await kit.result(`${open.outcome.runId!}/task-1-readme`);
    expect(childRecord.profile).toMatchObject({ agent: 'explore', machine: 'repo-cold', identity: 'read', repo: { value: 'acme/open' } });
    // Its workspace was its own, and went with it.
    const childWorkspace = workspaceLayout(join(dirname(kit.scriptsDir), 'data'), { key: childRecord.runId, network: true }).root;
    expect(existsSync(childWorkspace)).toBe(false);
    // The conductor has no machine, so its thread vets nothing; the child's vet is the one GET.
    expect(gets('acme/open') - before).toBe(1);

    const hidden = await mention(`agent:conductor model:scripted:${conductor('acme/hidden')} in acme/hidden: what does the README say?`);
    const refused = await kit.result(hidden.outcome.runId!);
    expect(refused.finalText).toContain('acme/hidden is not visible to the read GitHub identity explore runs with');
    expect(refused.toolCalls[0]).toMatchObject({ name: 'task', ok: false });
  });
});
