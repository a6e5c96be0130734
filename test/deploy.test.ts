import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProgram } from '../cli';
import { projectRoot } from '../infra/paths';

const UNITS = join(projectRoot(), 'deploy', 'systemd');

/** `systemd-analyze verify` on a unit file: its exit code and everything it said (a warning is a finding too). */
function verify(file: string): { status: number | null; said: string } {
  const run = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
  if (run.error) throw new Error(`systemd-analyze did not run (${run.error.message}): apt-get install -y systemd`);
  return { status: run.status, said: `${run.stdout}${run.stderr}`.trim() };
}

/** The `Key=value` settings of a unit, each key with all its values in order. */
function settings(text: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (match) found.set(match[1], [...(found.get(match[1]) ?? []), match[2]]);
  }
  return found;
}

/** docs/deploy.md's recipe, checked: its systemd units verify cleanly and are what the page shows. */
describe('the systemd units of docs/deploy.md', () => {
  const files = readdirSync(UNITS).filter((name) => name.endsWith('.service'));

  it('are one per role', () => {
    expect(files.sort()).toEqual(['switchboard-server.service', 'switchboard-worker.service']);
  });

  it.each(['switchboard-server.service', 'switchboard-worker.service'])('%s passes systemd-analyze verify without a word', (name) => {
    expect(verify(join(UNITS, name))).toEqual({ status: 0, said: '' });
  });

  it('would be caught if wrong: a missing binary fails, a mistyped setting is said', () => {
    const dir = mkdtempSync(join(tmpdir(), 'deploy-units-'));
    const worker = readFileSync(join(UNITS, 'switchboard-worker.service'), 'utf8');
    writeFileSync(join(dir, 'missing.service'), worker.replace('/usr/bin/env node', '/usr/bin/no-such-node'));
    writeFileSync(join(dir, 'typo.service'), worker.replace('Restart=on-failure', 'Restart=sometimes'));
    expect(verify(join(dir, 'missing.service')).status).not.toBe(0);
    expect(verify(join(dir, 'typo.service')).said).toMatch(/Failed to parse service restart specifier/);
    rmSync(dir, { recursive: true, force: true });
  });

  it('run the worker as root and the server unprivileged, each with its role, the env file and its own data', () => {
    const worker = settings(readFileSync(join(UNITS, 'switchboard-worker.service'), 'utf8'));
    const server = settings(readFileSync(join(UNITS, 'switchboard-server.service'), 'utf8'));
    expect(worker.get('User')).toEqual(['root']);
    expect(worker.get('ExecStart')).toEqual(['/usr/bin/env node /opt/switchboard/bin/switchboard.js worker']);
    // Workspaces outlive a worker restart; the worker makes cgroups below its own.
    expect(worker.get('KillMode')).toEqual(['process']);
    expect(worker.get('Delegate')).toEqual(['yes']);
    expect(server.get('User')).toEqual(['switchboard']);
    expect(server.get('ExecStart')).toEqual(['/usr/bin/env node /opt/switchboard/bin/switchboard.js server']);
    expect(server.get('NoNewPrivileges')).toEqual(['yes']);
    expect(server.get('CapabilityBoundingSet')).toEqual(['']);
    for (const unit of [worker, server]) {
      expect(unit.get('Environment')).toEqual(expect.arrayContaining(['SWITCHBOARD_ENV_FILE=/etc/switchboard/switchboard.env']));
      expect(unit.get('Environment')).toEqual(expect.arrayContaining(['SWITCHBOARD_PAYLOADS_DIR=/var/lib/switchboard/payloads']));
    }
    expect(worker.get('Environment')).toContain('SWITCHBOARD_DATA_DIR=/var/lib/switchboard/worker');
    expect(server.get('Environment')).toContain('SWITCHBOARD_DATA_DIR=/var/lib/switchboard/server');
    // The commands they run exist.
    const commands = createProgram().commands.map((command) => command.name());
    expect(commands).toEqual(expect.arrayContaining(['worker', 'server']));
  });

  it('are shown in docs/deploy.md word for word', () => {
    const page = readFileSync(join(projectRoot(), 'docs', 'deploy.md'), 'utf8');
    for (const name of files) {
      const shown = new RegExp(`\`deploy/systemd/${name.replace('.', '\\.')}\`:\\n\\n\`\`\`ini\\n([\\s\\S]*?)\`\`\``).exec(page)?.[1];
      expect(shown).toBe(readFileSync(join(UNITS, name), 'utf8'));
    }
  });
});
