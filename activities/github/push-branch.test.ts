import { type LocalGitHub } from '../../emulators/local-github';
import { branchHeads } from '../../emulators/local-github/git-store';
import { requireBubblewrap, sandboxFixture } from '../sandbox/test-support';
import { WorkspaceGit } from '../sandbox/workspace-git';
import { createUnitWorkspaceActivities } from '../units/unit-workspace';
import { type GitHubIdentities } from './identity';
import { createGitHubActivities } from './index';
import { localGitHubWithIdentities, READ_TOKEN, WRITE_TOKEN } from './test-support';

/**
 * A unit's git steps run inside the workspace's sandbox as its user, through the door that
 * adds the token on the worker's side: checkout, commit and push, whatever the sandbox planted.
 */
describe('git on a workspace (checkout, commit, push) inside its sandbox', () => {
  let github: LocalGitHub;
  let identities: GitHubIdentities;
  let fixture: Awaited<ReturnType<typeof sandboxFixture>>;
  let units: ReturnType<typeof createUnitWorkspaceActivities>;
  let activities: ReturnType<typeof createGitHubActivities>;
  let counter = 0;

  beforeAll(async () => {
    await requireBubblewrap();
    ({ github, identities } = await localGitHubWithIdentities());
    fixture = await sandboxFixture({ gitBaseUrl: github.gitUrl, identityToken: (scope) => identities.tokenFor(scope) });
    const git = new WorkspaceGit(fixture.host, github.gitUrl);
    units = createUnitWorkspaceActivities({ git, identities });
    activities = createGitHubActivities({ identities, workspaceGit: () => git });
  });
  afterAll(async () => {
    await fixture?.cleanup();
    await github?.close();
  });

  /** A repository and a workspace key (a unit id) of its own. */
  function fresh() {
    const name = `push-${++counter}`;
    const repoState = github.createRepo('acme', name, { 'README.md': 'x\n' });
    const key = `unit:acme/${name}:s`;
    const workspace = fixture.workspace();
    return { repo: `acme/${name}`, key: workspace.key, workspace: { ...workspace, key: workspace.key }, repoState, unitKey: key };
  }

  const sh = async (key: string, command: string) =>
    (await fixture.activities.bash({ workspace: { key, network: false }, command })).output;

  test('a checkout, a commit and a leased push; a repeated push confirms without a second write; the lease protects others', async () => {
    const { repo, key, repoState } = fresh();
    const ws = await units.prepareUnitWorkspace({ workspaceKey: key, repo, branch: 'switchboard/s', identity: 'write' });
    expect(ws).toMatchObject({ path: '/workspace', base: 'main', headSha: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(await sh(key, 'cat README.md; git config remote.origin.url')).toBe(`x\n${github.gitUrl}/${repo}.git\n`);
    await sh(key, 'echo new > new.txt');
    const commit = await units.commitWorkspace({ workspaceKey: key, message: 'round 1', since: ws.headSha });
    expect(commit.changed).toBe(true);
    const input = { repo, workspaceKey: key, branch: 'switchboard/s', effectKey: `${key}/push/1`, expectedRemoteSha: '' };
    const first = await activities.pushBranch(input);
    expect(first).toMatchObject({ status: 'confirmed', sha: commit.headSha });
    expect(branchHeads(repoState.dir).get('switchboard/s')).toBe(commit.headSha);
    expect(await activities.pushBranch(input)).toMatchObject({ status: 'confirmed', sha: first.sha });
    expect(github.state.countWrites('push', repo)).toBe(1);
    github.commit(repo, 'switchboard/s', { 'theirs.txt': 'theirs\n' });
    expect(await activities.pushBranch({ ...input, expectedRemoteSha: first.sha })).toMatchObject({
      status: 'refused',
      code: 'stale_lease',
    });
    // No token is anywhere the sandbox can look.
    expect(
      await sh(key, `grep -rl -e ${WRITE_TOKEN} -e ${READ_TOKEN} /workspace /home/sandbox /tmp 2>/dev/null; env | grep -c TOKEN`),
    ).toBe('0\n');
  });

  test('a read identity cannot push, and a dry run asks without writing', async () => {
    const { repo, key } = fresh();
    await units.prepareUnitWorkspace({ workspaceKey: key, repo, branch: 'x', identity: 'read' });
    await sh(key, 'git -c user.name=c -c user.email=c@example.invalid commit -q --allow-empty -m e');
    const result = await activities.pushBranch({ repo, identity: 'read', workspaceKey: key, branch: 'x', effectKey: 'k/push/1' });
    expect(result).toMatchObject({ status: 'refused', code: 'forbidden' });
    expect(result.reason).toMatch(/'read' identity/);
    const probe = { repo, workspaceKey: key, branch: 'x', effectKey: 'k/push-check/1', dryRun: true };
    expect(await activities.pushBranch({ ...probe, identity: 'read' })).toMatchObject({ status: 'refused', code: 'forbidden' });
    expect(await activities.pushBranch({ ...probe, identity: 'write' })).toMatchObject({ status: 'confirmed' });
    expect(github.state.countWrites('push', repo)).toBe(0);
  });

  test.each([
    [
      'hooks and core.hooksPath',
      'mkdir -p .git/hooks /tmp/h; for h in post-checkout pre-commit post-commit pre-push reference-transaction; do printf "#!/bin/sh\\necho %s >> /tmp/FIRED\\n" $h > .git/hooks/$h; cp .git/hooks/$h /tmp/h/; chmod +x .git/hooks/$h /tmp/h/$h; done; git config core.hooksPath /tmp/h',
    ],
    [
      'core.fsmonitor',
      'printf "#!/bin/sh\\necho fsmonitor >> /tmp/FIRED\\n" > /tmp/fsm; chmod +x /tmp/fsm; git config core.fsmonitor /tmp/fsm',
    ],
    [
      'a filter driver',
      'printf "#!/bin/sh\\necho filter >> /tmp/FIRED; cat\\n" > /tmp/flt; chmod +x /tmp/flt; git config filter.x.clean /tmp/flt; mkdir -p .git/info; echo "* filter=x" > .git/info/attributes',
    ],
    [
      'url.insteadOf to another address',
      `git config url.http://127.0.0.1:9/evil/.insteadOf ${'$'}(git remote get-url origin | sed "s|/acme/.*||")/`,
    ],
    ['a .git that is a gitfile', 'rm -rf .git; echo "gitdir: /tmp/elsewhere" > .git'],
    ['a .git that is a link', 'mv .git /tmp/realgit; ln -s /tmp/realgit .git'],
    ['stale lock files', 'touch .git/index.lock .git/HEAD.lock; mkdir -p .git/refs/heads && touch .git/refs/heads/main.lock'],
  ])('what a run planted (%s) neither fires nor diverts the next checkout, commit and push', async (_what, plant) => {
    const { repo, key, repoState } = fresh();
    await units.prepareUnitWorkspace({ workspaceKey: key, repo, branch: 'switchboard/s', identity: 'write' });
    await sh(key, plant);
    const ws = await units.prepareUnitWorkspace({ workspaceKey: key, repo, branch: 'switchboard/s', identity: 'write' });
    await sh(key, 'echo change > change.txt');
    const commit = await units.commitWorkspace({ workspaceKey: key, message: 'round', since: ws.headSha });
    expect(commit.changed).toBe(true);
    const pushed = await activities.pushBranch({
      repo,
      workspaceKey: key,
      branch: 'switchboard/s',
      effectKey: `${key}/push/1`,
      expectedRemoteSha: '',
    });
    expect(pushed).toMatchObject({ status: 'confirmed', sha: commit.headSha });
    expect(branchHeads(repoState.dir).get('switchboard/s')).toBe(commit.headSha);
    expect(await sh(key, 'cat /tmp/FIRED 2>/dev/null; git show --stat --format=%s HEAD | head -3')).not.toMatch(
      /post-checkout|pre-commit|post-commit|pre-push|fsmonitor|filter|reference/,
    );
  });
});
