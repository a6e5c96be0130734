import { createServer, type Server } from 'node:http';
import { networkInterfaces } from 'node:os';
import { startLocalGitHub, type LocalGitHub } from '../../../emulators/local-github';
import { startFakeInternet, type FakeInternet } from '../../../test/helpers/fake-internet';
import { type BashInput } from '../../../workflows/contracts/sandbox';
import { requireBubblewrap, sandboxFixture } from '../test-support';

/** A non-loopback address of this host (its LAN side), where a service on 0.0.0.0 answers. */
function hostAddress(): string {
  const found = Object.values(networkInterfaces())
    .flat()
    .find((entry) => entry && entry.family === 'IPv4' && !entry.internal);
  if (!found) throw new Error('this host has no non-loopback IPv4 address to probe');
  return found.address;
}

const curl = (url: string, flags = '') => `curl -sS -m 5 ${flags} ${url} 2>&1; echo " [exit $?]"`;

describe('the network door (bwrap)', () => {
  let fixture: Awaited<ReturnType<typeof sandboxFixture>>;
  let github: LocalGitHub;
  let internet: FakeInternet;
  let hostService: Server;
  let hostPort: number;
  beforeAll(async () => {
    await requireBubblewrap();
    github = await startLocalGitHub({ tokens: { read: ['read-token-1234'], write: ['write-token-5678'] } });
    github.createRepo('acme', 'app', { 'README.md': '# app\n' });
    github.createRepo('acme', 'other', { 'README.md': '# other\n' });
    internet = await startFakeInternet();
    hostService = createServer((_req, res) => res.end('host-only service\n'));
    await new Promise<void>((resolve) => hostService.listen(0, '0.0.0.0', resolve));
    hostPort = (hostService.address() as { port: number }).port;
    fixture = await sandboxFixture({
      gitBaseUrl: github.gitUrl,
      // Both scopes get the write token: only the door's own rules can stop a read run's push.
      identityToken: async () => 'write-token-5678',
      egress: { allow: ['*'], agents: { narrow: ['registry.example.org'] } },
    });
  });
  afterAll(async () => {
    await fixture?.cleanup();
    hostService?.close();
    await internet?.close();
    await github?.close();
  });

  const run = (input: Omit<BashInput, 'workspace'> & { network?: boolean }, workspace = fixture.workspace(input.network ?? true)) =>
    fixture.activities.bash({ ...input, workspace });

  test('reaches a public address through the door (proxy and CONNECT), and has no other route', async () => {
    const target = `http://${internet.address}:${internet.port}/ping`;
    const result = await run({ command: [curl(target), curl(target, '-p'), curl(target, "--noproxy '*' -m 3")].join('; echo ---; ') });
    const [viaProxy, viaConnect, direct] = result.output.split('---\n');
    expect(viaProxy).toContain(`${internet.greeting} GET /ping`);
    expect(viaConnect).toContain(`${internet.greeting} GET /ping`);
    expect(direct).not.toContain(internet.greeting);
    expect(direct).toMatch(/exit [1-9]/);
  });

  test("refuses the host's loopback, its other addresses, private, link-local and metadata ranges, directly and through the door", async () => {
    const targets = [
      `http://127.0.0.1:${hostPort}/`,
      `http://localhost:${hostPort}/`,
      `http://${hostAddress()}:${hostPort}/`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.1.2.3/',
      'http://[::1]:80/',
    ];
    // Through the door even where NO_PROXY would send curl straight to the sandbox's own loopback.
    const door = `--noproxy '' -x "$HTTP_PROXY"`;
    const probes = targets.flatMap((url) => [curl(url, door), curl(url, `${door} -p`), curl(url, "--noproxy '*' -m 2")]);
    const result = await run({ command: probes.join('; echo ---; ') });
    const answers = result.output.split('---\n');
    expect(answers).toHaveLength(targets.length * 3);
    for (const answer of answers) expect(answer).not.toContain('host-only service');
    expect(result.output).toMatch(/refused this request: 127\.0\.0\.1 is not on the public internet: 127\.0\.0\.1 is a loopback address/);
    expect(result.output).toMatch(/localhost is not on the public internet/);
    expect(result.output).toContain(`${hostAddress()} is not on the public internet`);
    expect(result.output).toMatch(/169\.254\.169\.254 is a cloud metadata address/);
    expect(result.output).toMatch(/10\.1\.2\.3 is a private address/);
  });

  test("an offline machine class gets nothing, and an agent's allowlist narrows the destinations", async () => {
    const target = `http://${internet.address}:${internet.port}/`;
    const offline = await run({ command: curl(target), network: false });
    expect(offline.output).toMatch(/machine class has no network/);
    const narrow = await run({ command: curl(target), agent: 'narrow', machine: 'repo-cold' });
    expect(narrow.output).toMatch(/is not among the destinations this run may reach \(registry\.example\.org\)/);
    expect(narrow.output).not.toContain(internet.greeting);
  });

  test('git clones and pushes with the run identity added outside: no token anywhere in the sandbox', async () => {
    const workspace = fixture.workspace(true);
    const remote = `${github.gitUrl}/acme/app.git`;
    const write = { identity: 'write' as const, repo: 'acme/app', refs: { own: ['switchboard/sandbox-branch'] } };
    const clone = await run(
      {
        ...write,
        command: [
          `git clone -q ${remote} app && cd app`,
          'git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m "from the sandbox"',
          'git push -q origin HEAD:switchboard/sandbox-branch 2>&1 && echo pushed',
          'git config --get remote.origin.url',
        ].join(' && '),
      },
      workspace,
    );
    expect(clone.output).toContain('pushed');
    expect(clone.output).toContain(remote);
    expect(github.state.writes).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'push', repo: 'acme/app' })]));
    const snoop = await run(
      {
        ...write,
        command: `printf 'protocol=http\\nhost=${new URL(github.gitUrl).host}\\n\\n' | git credential fill 2>&1; env; cat app/.git/config; grep -rl 5678 /workspace /home /tmp /etc 2>/dev/null; echo end`,
      },
      workspace,
    );
    expect(snoop.output).not.toContain('write-token-5678');
    expect(snoop.output).not.toMatch(/password=/);
    expect(snoop.output).toMatch(/end\n$/);
  });

  test("a read identity never pushes, and a write identity pushes only to its bound repository (the door's own rules)", async () => {
    const workspace = fixture.workspace(true);
    const push = (repo: string) =>
      `(git clone -q ${github.gitUrl}/${repo}.git ${repo.replace('/', '-')} && cd ${repo.replace('/', '-')} && git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m x && git push -q origin HEAD:door-test 2>&1; echo " [exit $?]")`;
    const read = await run({ identity: 'read', repo: 'acme/app', command: push('acme/app') }, workspace);
    expect(read.output).toMatch(/identity is 'read': it may fetch but never push/);
    const elsewhere = await run({ identity: 'write', repo: 'acme/app', command: push('acme/other') }, workspace);
    expect(elsewhere.output).toMatch(/may push only to acme\/app, not to acme\/other/);
    const unbound = await run(
      { identity: 'write', command: `cd acme-app && git push -q origin HEAD:door-test 2>&1; echo " [exit $?]"` },
      workspace,
    );
    expect(unbound.output).toMatch(/bound to no repository, so it may not push/);
    expect(github.state.writes.filter((entry) => entry.kind === 'push' && entry.repo === 'acme/other')).toEqual([]);
  });
});

describe('the network door (unisolated-unsafe)', () => {
  test('git still reaches the git host through the door on the host, with the token added outside the command', async () => {
    const github = await startLocalGitHub({ tokens: { read: ['read-token-1234'], write: ['write-token-5678'] } });
    github.createRepo('acme', 'app', { 'README.md': '# app\n' });
    const fixture = await sandboxFixture({
      isolation: 'unisolated-unsafe',
      gitBaseUrl: github.gitUrl,
      identityToken: async (scope) => (scope === 'read' ? 'read-token-1234' : undefined),
    });
    try {
      const result = await fixture.activities.bash({
        workspace: fixture.workspace(true),
        identity: 'read',
        command: `git clone -q ${github.gitUrl}/acme/app.git app && cat app/README.md && env | grep -c token-1234`,
      });
      expect(result.output).toMatch(/^# app\n0\n$/);
    } finally {
      await fixture.cleanup();
      await github.close();
    }
  });
});
