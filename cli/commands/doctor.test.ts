import { existsSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { defaultUidRange, processesOf } from '../../activities/sandbox/sandbox-uids';
import { randomUUID } from 'node:crypto';
import { resolveTemporalBinary } from '../../infra/temporal-binaries';
import { startMoto } from '../../test/helpers/moto';
import { waitUntil } from '../../test/helpers/wait';
import { runDoctor, type DoctorOptions } from './doctor';

async function doctor(
  env: NodeJS.ProcessEnv,
  options: Pick<DoctorOptions, 'sandboxProbe'> = {},
  cwd = mkdtempSync(join(tmpdir(), 'switchboard-doctor-')),
): Promise<{ code: number; output: string }> {
  const lines: string[] = [];
  const code = await runDoctor({
    env,
    cwd,
    write: (line) => lines.push(line),
    ...options,
  });
  return { code, output: lines.join('\n') };
}

describe('switchboard doctor', () => {
  const address = process.env.SWITCHBOARD_TEST_TEMPORAL_ADDRESS!;
  const base = { PATH: process.env.PATH, TEMPORAL_TEST_SERVER_PATH: process.env.TEMPORAL_TEST_SERVER_PATH, ANTHROPIC_API_KEY: 'k' };

  it('passes against a running server with our search attributes', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'switchboard-doctor-'));
    const { code, output } = await doctor({ ...base, TEMPORAL_ADDRESS: address }, {}, cwd);
    expect(output).toMatch(/ok {4}temporal CLI: .*temporal version 1\.9\.1/);
    expect(output).toMatch(/ok {4}temporal server: /);
    expect(output).toMatch(/ok {4}search attributes: all registered/);
    expect(output).toContain(
      "info  tools: web_fetch on (allowlist: none); web_search off (no search provider is configured (web.search.provider)); skills: 0 configured folders beside each checkout's .switchboard/skills/",
    );
    expect(output).toMatch(/ok {4}sandbox: bubblewrap isolates commands .*network door: nsenter/);
    // The uid mapping, the seccomp filter and every bound in force, one line each.
    // The deployment's own uid range (derived from its data dir), and that nothing else on the host runs in it.
    const range = defaultUidRange(join(cwd, '.data'));
    const uids = `${range.first}…${range.first + range.count - 1}`;
    expect(output).toContain(`      user: each workspace runs as a host uid of its own (${uids}), mapped to uid 1000`);
    expect(output).toContain(
      `      uids: ${uids} (this deployment's own, derived from its data dir; sandbox.uids sets another); no process of another deployment or account runs as one of them`,
    );
    expect(output).toMatch(/ {6}seccomp: x64 filter: \d+ syscalls refused/);
    expect(output).toMatch(/ {6}cgroups: cgroup v1: pids, memory, cpu per workspace/);
    for (const bound of [
      'processes: 1024',
      'memory: 4096 MiB',
      'tmp: 1024 MiB',
      'shm: 256 MiB',
      'disk: 10240 MiB ext4 image',
      'cpu: 3600 s',
      'fileSize: 4096 MiB',
      'openFiles: 4096',
    ])
      expect(output).toContain(`      ${bound}`);
    expect(code).toBe(0);
  });

  it("names the processes of another deployment or account that run as uids of this deployment's range", async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'switchboard-doctor-'));
    const uid = defaultUidRange(join(cwd, '.data')).first + 7;
    const foreign = spawn('setpriv', ['--reuid', String(uid), '--regid', String(uid), '--clear-groups', '--', 'sleep', '600'], {
      stdio: 'ignore',
    });
    try {
      await waitUntil(
        async () => processesOf(uid).length,
        (count) => count > 0,
      );
      const { code, output } = await doctor({ ...base, TEMPORAL_ADDRESS: address }, {}, cwd);
      expect(output).toMatch(
        new RegExp(
          `uids: .*WARNING: 1 process not of this deployment runs as uids of it \\(pid ${foreign.pid} as uid ${uid}\\).*give each deployment on a host its own sandbox.uids range`,
        ),
      );
      // A warning, not a failure: the uid is simply never handed out here.
      expect(code).toBe(0);
    } finally {
      foreign.kill('SIGKILL');
    }
  });

  it('prints the exact create lines for missing search attributes, and they work', async () => {
    // A fresh namespace has none of ours, as on a cluster Switchboard has never started against.
    const namespace = `doctor-${randomUUID().slice(0, 8)}`;
    const temporal = resolveTemporalBinary('cli').path;
    execFileSync(temporal, ['operator', 'namespace', 'create', '--address', address, '--namespace', namespace], { stdio: 'pipe' });
    const env = { ...base, TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace };
    const before = await waitUntil(
      () => doctor(env),
      (result) => /search attributes: missing/.test(result.output),
    );
    expect(before.code).toBe(1);
    const lines = before.output.split('\n').filter((line) => line.trim().startsWith('temporal operator search-attribute create'));
    expect(lines).toContain(
      `      temporal operator search-attribute create --address ${address} --namespace ${namespace} --name PullRequest --type Int`,
    );
    expect(lines).toHaveLength(8);
    for (const line of lines) execFileSync(temporal, line.trim().split(/\s+/).slice(1), { stdio: 'pipe' });
    const after = await waitUntil(
      () => doctor(env),
      (result) => /ok {4}search attributes: all registered/.test(result.output),
    );
    expect(after.code).toBe(0);
  });

  it('checks the default model key and the GitHub identities', async () => {
    const bare = await doctor({ ...base, TEMPORAL_ADDRESS: address, ANTHROPIC_API_KEY: '' });
    expect(bare.output).toContain('FAIL  model: the default model anthropic:claude-sonnet-4-6 cannot be called: set ANTHROPIC_API_KEY');
    expect(bare.output).toContain('WARN  github write identity: none (GITHUB_WRITE_TOKEN or the App): ship units, coding runs');
    expect(bare.output).toContain('  - set ANTHROPIC_API_KEY for the default model anthropic:claude-sonnet-4-6 (agents.defaults.model)');
    expect(bare.code).toBe(1);
    const ready = await doctor({ ...base, TEMPORAL_ADDRESS: address, GITHUB_READ_TOKEN: 'r', GITHUB_WRITE_TOKEN: 'w' });
    expect(ready.output).toContain('ok    model: the default model anthropic:claude-sonnet-4-6 has its key');
    expect(ready.output).toContain('ok    github read identity: GITHUB_READ_TOKEN');
    expect(ready.output).toContain('ok    github write identity: GITHUB_WRITE_TOKEN');
    expect(ready.code).toBe(0);
  });

  it('says which search provider is off for want of its key, without failing', async () => {
    const { code, output } = await doctor({ ...base, TEMPORAL_ADDRESS: address, SWITCHBOARD_SEARCH_PROVIDER: 'tavily' });
    expect(output).toContain('web_search off (web.search.provider is tavily but TAVILY_API_KEY is not set)');
    expect(code).toBe(0);
    const keyed = await doctor({ ...base, TEMPORAL_ADDRESS: address, SWITCHBOARD_SEARCH_PROVIDER: 'tavily', TAVILY_API_KEY: 'k' });
    expect(keyed.output).toContain('web_search on (tavily)');
  });

  it('fails with the fix when the CLI binary is missing', async () => {
    const { code, output } = await doctor({ ...base, TEMPORAL_ADDRESS: address, TEMPORAL_CLI_PATH: '/nonexistent/temporal' });
    expect(code).toBe(1);
    expect(output).toMatch(/FAIL {2}temporal CLI: TEMPORAL_CLI_PATH=\/nonexistent\/temporal is not an executable file/);
    expect(output).toMatch(/1 problem:\n {2}- .*npm install/);
  });

  it('fails when a configured server is unreachable, and names a bad config key', async () => {
    const unreachable = await doctor({ ...base, TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expect(unreachable.code).toBe(1);
    expect(unreachable.output).toMatch(/FAIL {2}temporal server: not reachable at 127\.0\.0\.1:1/);

    const badConfig = await doctor({ ...base, PORT: 'abc' });
    expect(badConfig.code).toBe(1);
    expect(badConfig.output).toMatch(/FAIL {2}config: [\s\S]*PORT \(http\.port\)/);
  });

  it('reports a missing bubblewrap as a problem with the packages to install, and unisolated mode loudly', async () => {
    const missing = await doctor(
      { ...base, TEMPORAL_ADDRESS: address },
      { sandboxProbe: async () => ({ mode: 'none', setpriv: true, reason: 'bwrap is not installed' }) },
    );
    expect(missing.code).toBe(1);
    expect(missing.output).toMatch(/FAIL {2}sandbox: bwrap is not installed; shell agents are refused/);
    expect(missing.output).toMatch(
      /1 problem:\n {2}- install bubblewrap, util-linux and python3 .*apt-get install -y bubblewrap util-linux python3/,
    );

    const unisolated = await doctor({ ...base, TEMPORAL_ADDRESS: address, SWITCHBOARD_SANDBOX_ISOLATION: 'unisolated-unsafe' });
    expect(unisolated.output).toMatch(/WARN {2}sandbox: UNISOLATED by configuration/);
    expect(unisolated.code).toBe(0);
  });

  it('writes and reads a probe object when payloads.store is s3, and fails in one line naming the bucket', async () => {
    const moto = await startMoto();
    // The AWS SDK reads its credential chain from the process environment, as in a deployment.
    const saved = { ...process.env };
    Object.assign(process.env, moto.awsEnv);
    try {
      await moto.createBucket('doctor-ok');
      const s3 = {
        SWITCHBOARD_PAYLOADS_STORE: 's3',
        SWITCHBOARD_PAYLOADS_S3_BUCKET: 'doctor-ok',
        SWITCHBOARD_PAYLOADS_S3_ENDPOINT: moto.endpoint,
        SWITCHBOARD_PAYLOADS_S3_FORCE_PATH_STYLE: 'true',
      };
      const ok = await doctor({ ...base, TEMPORAL_ADDRESS: address, ...s3 });
      expect(ok.output).toContain(
        `ok    payloads: the bucket doctor-ok at ${moto.endpoint} (prefix "switchboard/payloads/") is reachable and writable`,
      );
      expect(ok.code).toBe(0);
      expect(await moto.listKeys('doctor-ok', '')).toEqual(['switchboard/payloads/doctor-probe']);

      const missing = await doctor({ ...base, TEMPORAL_ADDRESS: address, ...s3, SWITCHBOARD_PAYLOADS_S3_BUCKET: 'doctor-none' });
      const failed = missing.output.split('\n').filter((line) => line.startsWith('FAIL  payloads:'));
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatch(
        /the bucket doctor-none at .*: writing switchboard\/payloads\/doctor-probe failed: .*bucket does not exist/,
      );
      expect(missing.output).toMatch(/- make the bucket doctor-none .* reachable and writable/);
      expect(missing.code).toBe(1);
    } finally {
      for (const key of Object.keys(moto.awsEnv)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
      await moto.stop();
    }
  });

  it('names a missing system package and the exact apt command', async () => {
    // A PATH that has every package's command but bwrap and pip3.
    const bin = mkdtempSync(join(tmpdir(), 'switchboard-doctor-path-'));
    for (const command of ['git', 'pgrep', 'nsenter', 'curl', 'ip', 'openssl', 'chromium', 'systemd-analyze'])
      symlinkSync(which(command), join(bin, command));
    const { code, output } = await doctor({ ...base, PATH: bin, TEMPORAL_ADDRESS: address });
    expect(code).toBe(1);
    expect(output).toMatch(/ok {4}git: .* \(git\)/);
    expect(output).toMatch(/FAIL {2}bwrap: not found; Debian package bubblewrap, for /);
    expect(output).toMatch(/FAIL {2}pip3: not found; Debian package python3-pip/);
    expect(output).toMatch(/- install the missing system packages: (sudo )?apt-get install -y bubblewrap python3-pip$/m);
  });
});

function which(command: string): string {
  const dir = (process.env.PATH ?? '').split(':').find((d) => d && existsSync(join(d, command)));
  if (!dir) throw new Error(`${command} is not on this machine's PATH`);
  return join(dir, command);
}
