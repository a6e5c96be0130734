import { startLocalSlack, type LocalSlack } from '../../emulators/local-slack';
import { type LocalGitHub } from '../../emulators/local-github';
import { createGitHubActivities } from '../github';
import { localGitHubWithIdentities } from '../github/test-support';
import { createSlackWebClient } from '../slack/slack-client';
import { requireBubblewrap, sandboxFixture } from '../sandbox/test-support';
import { attachBlockId } from './slack-upload';
import { commentBody, createAttachActivities, GITHUB_COMMENT_CONTENT_LIMIT } from '.';

const TOKEN = 'xoxb-attach';

describe('attach_file', () => {
  let fixture: Awaited<ReturnType<typeof sandboxFixture>>;
  let workspace: ReturnType<typeof fixture.workspace>;
  let slack: LocalSlack;
  let github: LocalGitHub;
  let attach: ReturnType<typeof createAttachActivities>;
  let repo: string;

  beforeAll(async () => {
    await requireBubblewrap();
    fixture = await sandboxFixture();
    workspace = fixture.workspace();
    // The run's own commands write the report, and a link out of the workspace.
    const made = await fixture.activities.bash({
      workspace,
      command: "mkdir -p out && printf '# Report\\n\\nAll green.\\n' > out/report.md && ln -s /etc/passwd out/leak.txt",
    });
    expect(made.exitCode).toBe(0);
    slack = await startLocalSlack({ botToken: TOKEN });
    const started = await localGitHubWithIdentities();
    github = started.github;
    github.createRepo('acme', 'app', { 'README.md': '# app\n' });
    repo = 'acme/app';
    await createGitHubActivities({ identities: started.identities }).createIssue({
      repo,
      effectKey: 'setup/issue',
      title: 'PR stand-in',
      body: 'x',
    });
    attach = createAttachActivities({
      sandboxHost: fixture.host,
      slack: () => createSlackWebClient({ token: TOKEN, apiUrl: slack.apiUrl }),
      github: started.identities,
    });
  });
  afterAll(async () => {
    await slack.close();
    await github.close();
    await fixture?.cleanup();
  });

  const slackTarget = () => {
    const threadTs = slack.state.add({ channel: 'C1', user: 'U1', text: 'make a report' }).ts;
    return { kind: 'slack' as const, team: 'T0LOCAL', channel: 'C1', threadTs };
  };
  const shared = (threadTs: string) => slack.state.thread('C1', threadTs).filter((message) => message.files?.length);

  it('uploads to a Slack thread through the external upload flow, once per effect key', async () => {
    const replyTarget = slackTarget();
    const input = {
      workspace,
      path: 'out/report.md',
      comment: 'Here is the report.',
      replyTarget,
      effectKey: 'run:a/attach_file/1.0',
      identity: 'write' as const,
    };
    const first = await attach.attachFile(input);
    expect(first).toMatchObject({ status: 'confirmed' });
    expect(slack.callsTo('files.getUploadURLExternal')).toHaveLength(1);
    expect(slack.callsTo('upload')).toHaveLength(1);
    const [message] = shared(replyTarget.threadTs);
    expect(message).toMatchObject({ thread_ts: replyTarget.threadTs, files: [{ name: 'report.md', title: 'report.md', size: 21 }] });
    expect(message.blocks).toEqual([
      { type: 'section', block_id: attachBlockId(input.effectKey), text: { type: 'mrkdwn', text: 'Here is the report.' } },
    ]);
    const file = slack.state.files.get(message.files![0].id);
    expect(file?.content?.toString()).toBe('# Report\n\nAll green.\n');
    // A retry (another worker, a lost answer) finds the marker and uploads nothing.
    await expect(attach.attachFile(input)).resolves.toMatchObject({ status: 'confirmed' });
    expect(shared(replyTarget.threadTs)).toHaveLength(1);
    expect(slack.callsTo('files.getUploadURLExternal')).toHaveLength(1);
  });

  it('confirms a share whose answer was lost by finding it in the thread, without sharing twice', async () => {
    const replyTarget = slackTarget();
    slack.faults.dropResponse('files.completeUploadExternal');
    const result = await attach.attachFile({
      workspace,
      path: 'out/report.md',
      replyTarget,
      effectKey: 'run:b/attach_file/1.0',
      identity: 'write',
    });
    expect(result).toMatchObject({ status: 'confirmed' });
    expect(shared(replyTarget.threadTs)).toHaveLength(1);
    expect(shared(replyTarget.threadTs)[0].blocks).toEqual([
      expect.objectContaining({ text: { type: 'mrkdwn', text: ':paperclip: report.md' } }),
    ]);
  });

  it('refuses paths outside the workspace and links that lead out, as data', async () => {
    const replyTarget = slackTarget();
    const base = { workspace, replyTarget, effectKey: 'run:c/attach_file/1.0', identity: 'write' as const };
    await expect(attach.attachFile({ ...base, path: '/etc/passwd' })).resolves.toMatchObject({
      status: 'refused',
      reason: expect.stringContaining('outside the workspace'),
    });
    await expect(attach.attachFile({ ...base, path: 'out/leak.txt' })).resolves.toMatchObject({
      status: 'refused',
      reason: expect.stringContaining('outside the workspace'),
    });
    await expect(attach.attachFile({ ...base, path: 'out/missing.txt' })).resolves.toMatchObject({ status: 'refused' });
    expect(shared(replyTarget.threadTs)).toHaveLength(0);
  });

  it('posts to a pull request as a comment with the content, carrying the effect marker', async () => {
    const result = await attach.attachFile({
      workspace,
      path: 'out/report.md',
      title: 'CI report',
      replyTarget: { kind: 'github', repo, pullRequest: 1 },
      effectKey: 'run:d/attach_file/2.0',
      identity: 'write',
    });
    expect(result).toMatchObject({ status: 'confirmed', url: expect.stringContaining('/acme/app/') });
    const comments = github.state.repo('acme', 'app')!.issues.get(1)!.comments;
    expect(comments).toHaveLength(1);
    expect(comments[0].body).toContain(':paperclip: **CI report** (`out/report.md`, 21 bytes)\n\n```md\n# Report\n\nAll green.\n```');
    expect(comments[0].body).toContain('<!-- switchboard-effect: run:d/attach_file/2.0 -->');
  });

  it('cuts a long file to what a comment holds and fences content that has backticks', () => {
    const long = commentBody('big.log', 'big.log', undefined, Buffer.from('z'.repeat(GITHUB_COMMENT_CONTENT_LIMIT + 10)));
    expect(long.truncated).toBe(true);
    expect(long.body).toContain(`Only the first ${GITHUB_COMMENT_CONTENT_LIMIT} characters fit`);
    expect(commentBody('a.md', 'a.md', undefined, Buffer.from('```js\nx\n```\n')).body).toContain('````md\n```js\nx\n```\n````');
  });
});
