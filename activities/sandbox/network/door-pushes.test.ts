import { execFileSync } from 'node:child_process';
import { type LocalGitHub } from '../../../emulators/local-github';
import { branchHeads } from '../../../emulators/local-github/git-store';
import { createPushPolicy } from '../../github/push-policy';
import { createRepoSettingsReader } from '../../github/repo-settings';
import { localGitHubWithIdentities, READ_TOKEN, WRITE_TOKEN } from '../../github/test-support';
import { type GitHubIdentities } from '../../github/identity';
import { type BashInput } from '../../../workflows/contracts/sandbox';
import { requireBubblewrap, sandboxFixture } from '../test-support';
import { DEFAULT_PUSH_RULES } from './push-rules';

/**
 * The door reads every push's ref updates before anything reaches the git host (issue 31): a run's
 * own commands push its own branch (and may rewrite or delete it), fast-forward the head branch of
 * a pull request it was admitted to, and nothing else. Each refusal is git's own `[remote
 * rejected]` line naming the ref and the rule, and the git host is left exactly as it was.
 */
describe('what the door lets a push update (bwrap)', () => {
  let fixture: Awaited<ReturnType<typeof sandboxFixture>>;
  let github: LocalGitHub;
  let identities: GitHubIdentities;
  let pullRequest: number;
  beforeAll(async () => {
    await requireBubblewrap();
    ({ github, identities } = await localGitHubWithIdentities());
    github.createRepo('acme', 'app', { 'README.md': '# app\n' }, { protectedBranches: ['release'] });
    github.commit('acme/app', 'switchboard/acme/app-other-unit', { 'other.txt': 'another unit\n' });
    github.commit('acme/app', 'feature/login', { 'login.txt': 'a person’s change\n' });
    github.commit('acme/app', 'release', { 'release.txt': 'protected\n' });
    // A repository that narrows the rules in its own file, and whose deployment entry narrows them again.
    github.createRepo('acme', 'strict', {
      'README.md': '# strict\n',
      '.switchboard.yml': 'pushes:\n  forceOwnBranch: false\n  pullRequestHeads: true\n',
    });
    github.commit('acme/strict', 'feature/x', { 'x.txt': 'x\n' });
    const gh = await identities.octokitFor('write');
    ({
      data: { number: pullRequest },
    } = await gh.rest.pulls.create({ owner: 'acme', repo: 'app', head: 'feature/login', base: 'main', title: 'Login' }));
    await gh.rest.pulls.create({ owner: 'acme', repo: 'app', head: 'release', base: 'main', title: 'Release' });
    fixture = await sandboxFixture({
      gitBaseUrl: github.gitUrl,
      identityToken: async (scope) => (scope === 'write' ? WRITE_TOKEN : READ_TOKEN),
      pushPolicy: createPushPolicy({
        rules: DEFAULT_PUSH_RULES,
        settings: createRepoSettingsReader({ identities, repositories: { 'acme/strict': { pushes: { pullRequestHeads: false } } } }),
        identities,
      }),
    });
  });
  afterAll(async () => {
    await fixture?.cleanup();
    await github?.close();
  });

  const heads = () => branchHeads(github.state.repo('acme', 'app')!.dir);
  const repoDir = () => github.state.repo('acme', 'app')!.dir;
  const run = (input: Omit<BashInput, 'workspace' | 'identity'>, workspace: BashInput['workspace']) =>
    fixture.activities.bash({ identity: 'write', repo: 'acme/app', ...input, workspace });
  /** One push attempt per line of output: `<name> exit=<code> <git's lines>`. */
  const attempt = (name: string, push: string) =>
    `out=$(${push} 2>&1); code=$?; printf '%s exit=%s %s\\n' '${name}' "$code" "$(printf '%s' "$out" | tr '\\n' ' ')"`;
  const lines = (output: string) =>
    Object.fromEntries(
      output
        .split('\n')
        .filter(Boolean)
        .map((line) => [line.split(' ')[0], line]),
    );

  test("a run's own branch is pushed, rewritten and deleted; the default branch, a tag, another unit's branch and its deletion are refused, and the git host keeps them", async () => {
    const workspace = fixture.workspace(true);
    const refs = { own: ['switchboard/run-1'] };
    const before = heads();
    const setup = await run(
      {
        refs,
        command: [
          `git clone -q ${github.gitUrl}/acme/app.git app && cd app`,
          'git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m mine',
          'git push -q origin HEAD:switchboard/run-1 2>&1 && echo own-pushed',
        ].join(' && '),
      },
      workspace,
    );
    expect(setup.output).toContain('own-pushed');
    const refused = await run(
      {
        refs,
        command: [
          'cd app',
          attempt('default', 'git push origin HEAD:main'),
          attempt('tag', 'git push origin HEAD:refs/tags/v9'),
          attempt('other', 'git push --force origin HEAD:switchboard/acme/app-other-unit'),
          attempt('delete-other', 'git push origin :switchboard/acme/app-other-unit'),
          attempt('notes', 'git push origin HEAD:refs/notes/commits'),
          // One refused ref refuses the whole push: the own branch is not moved by it either.
          'git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m two',
          attempt('both', 'git push origin HEAD:switchboard/run-1 HEAD:main'),
        ].join('\n'),
      },
      workspace,
    );
    const said = lines(refused.output);
    expect(said.default).toMatch(
      /exit=1 .*\[remote rejected\] HEAD -> main \(Switchboard refused: refs\/heads\/main is not a branch this run owns/,
    );
    expect(said.default).toMatch(/it may push only to refs\/heads\/switchboard\/run-1 \(its own\)/);
    expect(said.tag).toMatch(/exit=1 .*\[remote rejected\].*refs\/tags\/v9 is a tag: a run never pushes tags/);
    expect(said.other).toMatch(/exit=1 .*refs\/heads\/switchboard\/acme\/app-other-unit is not a branch this run owns/);
    expect(said['delete-other']).toMatch(/exit=1 .*\[remote rejected\].*it may delete only a branch it created/);
    expect(said.notes).toMatch(/exit=1 .*refs\/notes\/commits is not a branch/);
    expect(said.both).toMatch(
      /exit=1 .*switchboard\/run-1 \(Switchboard refused: not pushed: the same push also updates refs\/heads\/main/,
    );
    expect(said.both).toMatch(/remote: Switchboard refused this push/);
    const after = heads();
    expect(after.get('main')).toBe(before.get('main'));
    expect(after.get('switchboard/acme/app-other-unit')).toBe(before.get('switchboard/acme/app-other-unit'));
    expect(otherRefs(repoDir())).toEqual([]);
    const own = after.get('switchboard/run-1');
    expect(own).toBeDefined();

    // Its own branch: rewritten (a force push) and deleted.
    const mine = await run(
      {
        refs,
        command: [
          'cd app',
          'git -c user.name=t -c user.email=t@example.com commit -q --amend --allow-empty -m rewritten',
          attempt('force', 'git push --force origin HEAD:switchboard/run-1'),
          'git rev-parse HEAD',
        ].join('\n'),
      },
      workspace,
    );
    expect(lines(mine.output).force).toMatch(/exit=0 /);
    expect(heads().get('switchboard/run-1')).toBe(mine.output.trim().split('\n').pop());
    const deleted = await run({ refs, command: `cd app && ${attempt('delete', 'git push origin :switchboard/run-1')}` }, workspace);
    expect(lines(deleted.output).delete).toMatch(/exit=0 /);
    expect(heads().has('switchboard/run-1')).toBe(false);
  });

  test("a pull request's branch it was admitted to takes fast-forwards only: a force push, a deletion, a protected or closed pull request's branch are refused", async () => {
    const workspace = fixture.workspace(true);
    const refs = { own: [], pullRequest: { number: pullRequest, head: 'feature/login' } };
    const start = heads().get('feature/login');
    const forward = await run(
      {
        refs,
        command: [
          `git clone -q -b feature/login ${github.gitUrl}/acme/app.git app && cd app`,
          'git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m on-top',
          attempt('forward', 'git push origin HEAD:feature/login'),
          'git -c user.name=t -c user.email=t@example.com commit -q --amend --allow-empty -m rewritten',
          attempt('force', 'git push --force origin HEAD:feature/login'),
          attempt('delete', 'git push origin :feature/login'),
          attempt(
            'from-nothing',
            `git push --force origin "$(git -c user.name=t -c user.email=t@example.com commit-tree -m orphan HEAD^{tree})":feature/login`,
          ),
        ].join('\n'),
      },
      workspace,
    );
    const said = lines(forward.output);
    expect(said.forward).toMatch(/exit=0 /);
    // The amended commit's history leaves the pack at a commit the host has, which is not the branch's head.
    expect(said.force).toMatch(
      /exit=1 .*\[remote rejected\].*refs\/heads\/feature\/login may only be fast-forwarded, and this push could not be shown to build on its head/,
    );
    expect(said.delete).toMatch(/exit=1 .*pull request #\d+'s branch, which this run did not create: it may not delete it/);
    expect(said['from-nothing']).toMatch(/exit=1 .*may only be fast-forwarded, and this push rewrites it \(a force push\)/);
    const landed = heads().get('feature/login');
    expect(landed).not.toBe(start);

    // Admitted to a pull request whose head is protected, or to a closed one: refused all the same.
    const protectedPr = { own: [], pullRequest: { number: pullRequest + 1, head: 'release' } };
    const onProtected = await run(
      {
        refs: protectedPr,
        command: [
          `git clone -q -b release ${github.gitUrl}/acme/app.git rel && cd rel`,
          'git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m on-release',
          attempt('protected', 'git push origin HEAD:release'),
        ].join(' && '),
      },
      workspace,
    );
    expect(lines(onProtected.output).protected).toMatch(/exit=1 .*refs\/heads\/release is a protected branch/);
    await (
      await identities.octokitFor('write')
    ).rest.pulls.update({ owner: 'acme', repo: 'app', pull_number: pullRequest, state: 'closed' });
    const closed = await run(
      {
        refs,
        command: `cd app && git reset -q --hard origin/feature/login && git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m late && ${attempt('closed', 'git push origin HEAD:feature/login')}`,
      },
      workspace,
    );
    expect(lines(closed.output).closed).toMatch(/exit=1 .*pull request #\d+ is closed/);
    expect(heads().get('feature/login')).toBe(landed);
    expect(heads().get('release')).toBeDefined();
  });

  test("a repository's .switchboard.yml and the deployment's entry for it narrow the rules; neither widens them", async () => {
    const workspace = fixture.workspace(true);
    const gh = await identities.octokitFor('write');
    const { data: pr } = await gh.rest.pulls.create({ owner: 'acme', repo: 'strict', head: 'feature/x', base: 'main', title: 'X' });
    const commit = 'git -c user.name=t -c user.email=t@example.com commit -q --allow-empty';
    const result = await run(
      {
        repo: 'acme/strict',
        refs: { own: ['switchboard/run-9'] },
        command: [
          `git clone -q ${github.gitUrl}/acme/strict.git strict && cd strict`,
          `${commit} -m one`,
          attempt('own', 'git push origin HEAD:switchboard/run-9'),
          `${commit} --amend -m rewritten`,
          attempt('force', 'git push --force origin HEAD:switchboard/run-9'),
          'git reset -q --hard origin/switchboard/run-9',
          `${commit} -m two`,
          attempt('forward', 'git push origin HEAD:switchboard/run-9'),
        ].join('\n'),
      },
      workspace,
    );
    const said = lines(result.output);
    expect(said.own).toMatch(/exit=0 /);
    // The file turned force pushes of its own branch off: a rewrite must now build on the head.
    expect(said.force).toMatch(/exit=1 .*refs\/heads\/switchboard\/run-9 may only be fast-forwarded/);
    expect(said.forward).toMatch(/exit=0 /);
    // The deployment turned pull requests' branches off for the repository; the file's `true` does not turn them back on.
    const onPr = await run(
      {
        repo: 'acme/strict',
        refs: { own: [], pullRequest: { number: pr.number, head: 'feature/x' } },
        command: `git clone -q -b feature/x ${github.gitUrl}/acme/strict.git pr && cd pr && ${commit} -m on-top && ${attempt('pr', 'git push origin HEAD:feature/x')}`,
      },
      workspace,
    );
    expect(lines(onPr.output).pr).toMatch(/exit=1 .*pushing to pull requests' branches is turned off for this repository/);
  });

  test("a push larger than git's post buffer (a probe, then the pack sent chunked) passes the door: to the run's own branch and as a pull request's fast-forward", async () => {
    const workspace = fixture.workspace(true);
    github.commit('acme/app', 'feature/big', { 'big.txt': 'start\n' });
    const gh = await identities.octokitFor('write');
    const { data: pr } = await gh.rest.pulls.create({ owner: 'acme', repo: 'app', head: 'feature/big', base: 'main', title: 'Big' });
    // 3 MiB that does not compress: the pack is over http.postBuffer (1 MiB), so git probes with a bare flush first.
    // The pull request's branch first: its fast-forward is shown by the commits the pack carries.
    const result = await run(
      {
        refs: { own: ['switchboard/run-big'], pullRequest: { number: pr.number, head: 'feature/big' } },
        command: [
          `git clone -q -b feature/big ${github.gitUrl}/acme/app.git big && cd big`,
          'head -c 3145728 /dev/urandom > random.bin && git add random.bin',
          'git -c user.name=t -c user.email=t@example.com commit -q -m big',
          attempt('pr', 'git push origin HEAD:feature/big'),
          attempt('own', 'git push origin HEAD:switchboard/run-big'),
          'git rev-parse HEAD',
        ].join('\n'),
      },
      workspace,
    );
    const said = lines(result.output);
    expect(said.own).toMatch(/exit=0 /);
    expect(said.pr).toMatch(/exit=0 /);
    const pushed = result.output.trim().split('\n').pop();
    expect(heads().get('switchboard/run-big')).toBe(pushed);
    expect(heads().get('feature/big')).toBe(pushed);
  });

  test('branch names beyond ASCII are matched as UTF-8: its own and a pull request’s branch are pushed, another is refused by its own name', async () => {
    const workspace = fixture.workspace(true);
    github.commit('acme/app', 'feature/größe', { 'g.txt': 'g\n' });
    const gh = await identities.octokitFor('write');
    const { data: pr } = await gh.rest.pulls.create({ owner: 'acme', repo: 'app', head: 'feature/größe', base: 'main', title: 'Größe' });
    const result = await run(
      {
        refs: { own: ['switchboard/über'], pullRequest: { number: pr.number, head: 'feature/größe' } },
        command: [
          `git clone -q -b feature/größe ${github.gitUrl}/acme/app.git u && cd u`,
          'git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m ü',
          attempt('pr', 'git push origin HEAD:feature/größe'),
          attempt('own', 'git push origin HEAD:switchboard/über'),
          attempt('other', 'git push origin HEAD:switchboard/üBer'),
          'git rev-parse HEAD',
        ].join('\n'),
      },
      workspace,
    );
    const said = lines(result.output);
    expect(said.own).toMatch(/exit=0 /);
    expect(said.pr).toMatch(/exit=0 /);
    // The refusal names the ref as the run wrote it, not its bytes read as Latin-1.
    expect(said.other).toMatch(
      /exit=1 .*\[remote rejected\].*refs\/heads\/switchboard\/üBer is not a branch this run owns.*switchboard\/über \(its own\)/,
    );
    const pushed = result.output.trim().split('\n').pop();
    expect(heads().get('switchboard/über')).toBe(pushed);
    expect(heads().get('feature/größe')).toBe(pushed);
    expect(heads().has('switchboard/üBer')).toBe(false);
  });

  test('a run that owns no branch pushes nothing, and only git’s own requests pass the door', async () => {
    const workspace = fixture.workspace(true);
    const none = await run(
      {
        command: `git clone -q ${github.gitUrl}/acme/app.git app && cd app && git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m x && ${attempt('unowned', 'git push origin HEAD:switchboard/run-2')}`,
      },
      workspace,
    );
    expect(lines(none.output).unowned).toMatch(/exit=1 .*it owns no branch, so it may not push/);
    const door = (method: string, path: string) =>
      `printf '%s %s\\n' '${method} ${path}' "$(curl -s -o /dev/null -w '%{http_code}' -m 5 -X ${method} --noproxy '*' 'http://127.0.0.1:3128${path}')"`;
    const probes = await run(
      {
        refs: { own: ['switchboard/run-3'] },
        command: [
          door('GET', '/git/acme/app.git/info/refs?service=git-upload-pack'),
          door('DELETE', '/git/acme/app.git/info/refs?service=git-upload-pack'),
          door('PUT', '/git/acme/app.git/git-receive-pack'),
          door('GET', '/git/acme/app.git/git-upload-pack'),
          door('GET', '/git/api/v3/info/refs?service=git-upload-pack'),
          door('GET', '/git/acme/app.git/info/refs?service=git-upload-pack&x=1'),
          door('POST', '/git/acme/app.git/git-upload-pack?service=x'),
        ].join('\n'),
      },
      workspace,
    );
    expect(probes.output.trim().split('\n')).toEqual([
      'GET /git/acme/app.git/info/refs?service=git-upload-pack 200',
      'DELETE /git/acme/app.git/info/refs?service=git-upload-pack 403',
      'PUT /git/acme/app.git/git-receive-pack 403',
      'GET /git/acme/app.git/git-upload-pack 403',
      'GET /git/api/v3/info/refs?service=git-upload-pack 403',
      'GET /git/acme/app.git/info/refs?service=git-upload-pack&x=1 403',
      'POST /git/acme/app.git/git-upload-pack?service=x 403',
    ]);
  });
});

/** Refs of the local GitHub's bare repository outside refs/heads (tags, notes). */
function otherRefs(dir: string): string[] {
  return execFileSync('git', ['--git-dir', dir, 'for-each-ref', '--format=%(refname)'], { encoding: 'utf8' })
    .split('\n')
    .filter((ref) => ref && !ref.startsWith('refs/heads/'));
}
