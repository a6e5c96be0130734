import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startLocalGitHub, type LocalGitHub } from '.';

const run = promisify(execFile);

/** The local GitHub's git serves partial clones as GitHub does (issue 35: measured in `npm run bench`). */
describe('the local GitHub’s smart HTTP', () => {
  let github: LocalGitHub;
  let dir: string;
  beforeAll(async () => {
    github = await startLocalGitHub({ tokens: { read: ['r'], write: ['w'] } });
    github.createRepo('acme', 'partial', { 'a.txt': 'one\n' });
    github.commit('acme/partial', 'main', { 'a.txt': 'two\n', 'b.txt': 'bee\n' });
    dir = await mkdtemp(join(tmpdir(), 'switchboard-partial-'));
  });
  afterAll(async () => {
    await github.close();
    await rm(dir, { recursive: true, force: true });
  });
  // Async: the server answers in this process.
  const git = async (args: string[], cwd = dir) =>
    run('git', args, { cwd, env: { PATH: process.env.PATH, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1' } });
  const url = (token: string) => `${github.gitUrl.replace('http://', `http://x-access-token:${token}@`)}/acme/partial.git`;

  it('a blob-less clone gets the commits and trees and only the tip’s blobs; an older blob comes when it is needed', async () => {
    const cloned = await git(['clone', '--filter=blob:none', url('r'), 'blobless']);
    expect(cloned.stderr).not.toMatch(/filtering not recognized/);
    const work = join(dir, 'blobless');
    const counted = async () => Number(/in-pack: (\d+)/.exec((await git(['count-objects', '-v'], work)).stdout)![1]);
    // Two commits, two root trees, the tip's two blobs: the first commit's `one` is not here.
    expect(await counted()).toBe(6);
    expect((await git(['config', 'remote.origin.promisor'], work)).stdout.trim()).toBe('true');
    expect((await git(['show', 'HEAD~1:a.txt'], work)).stdout).toBe('one\n');
    expect(await counted()).toBe(7);
  });
});
