import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { joinCgroupsArgv, mountedHierarchies, ownCgroups, WorkspaceCgroup } from './cgroups';
import { DEFAULT_LIMITS } from './limits';

describe('cgroups', () => {
  it('reads the mounted hierarchies and the worker’s own groups (v1 beside an empty v2, as on this kind of host)', () => {
    const mountinfo = [
      '30 25 0:26 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:7 - cgroup2 cgroup2 rw',
      '36 25 0:31 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:15 - cgroup cgroup rw,memory',
      '37 25 0:32 / /sys/fs/cgroup/pids rw,nosuid,nodev,noexec,relatime shared:16 - cgroup cgroup rw,pids',
      '38 25 0:33 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime shared:17 - cgroup cgroup rw,cpu,cpuacct',
      '40 25 0:35 / / rw,relatime shared:1 - ext4 /dev/vda rw',
    ].join('\n');
    expect(mountedHierarchies(mountinfo)).toEqual([
      { version: 2, mountPoint: '/sys/fs/cgroup/unified', controllers: [] },
      { version: 1, mountPoint: '/sys/fs/cgroup/memory', controllers: ['rw', 'memory'] },
      { version: 1, mountPoint: '/sys/fs/cgroup/pids', controllers: ['rw', 'pids'] },
      { version: 1, mountPoint: '/sys/fs/cgroup/cpu,cpuacct', controllers: ['rw', 'cpu', 'cpuacct'] },
    ]);
    const own = ownCgroups('9:name=systemd:/\n8:pids:/\n4:memory:/process_api/abc\n2:cpu,cpuacct:/\n0::/\n');
    expect(own.get('memory')).toBe('/process_api/abc');
    expect(own.get('pids')).toBe('/');
    expect(own.get('cpu')).toBe('/');
    expect(own.get('')).toBe('/');
  });

  it.each([
    [1, { 'pids.max': '200', 'memory.limit_in_bytes': String(384 * 1024 * 1024), 'cpu.shares': '256' }],
    [2, { 'pids.max': '200', 'memory.max': String(384 * 1024 * 1024), 'memory.swap.max': '0', 'cpu.weight': '25' }],
  ] as const)('writes the bounds of cgroup v%s into the workspace’s groups', async (version, files) => {
    const root = mkdtempSync(join(tmpdir(), 'cgroups-'));
    try {
      const parents =
        version === 1
          ? { pids: join(root, 'pids'), memory: join(root, 'memory'), cpu: join(root, 'cpu') }
          : { pids: join(root, 'unified'), memory: join(root, 'unified'), cpu: join(root, 'unified') };
      const group = new WorkspaceCgroup({ version, parents }, 'ws-1500000001');
      await group.create({ ...DEFAULT_LIMITS, processes: 200, memoryMiB: 384 });
      for (const [file, value] of Object.entries(files)) {
        const folder = Object.values(parents).find((parent) => {
          try {
            readFileSync(join(parent, 'ws-1500000001', file));
            return true;
          } catch {
            return false;
          }
        });
        expect([file, folder && readFileSync(join(folder, 'ws-1500000001', file), 'utf8')]).toEqual([file, value]);
      }
      expect(group.procsFiles()).toHaveLength(version === 1 ? 3 : 1);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('joins the groups with a shell of the host before the rest of the chain runs', () => {
    expect(joinCgroupsArgv([])).toEqual([]);
    const argv = joinCgroupsArgv(['/g/pids/ws/cgroup.procs', '/g/memory/ws/cgroup.procs']);
    expect(argv.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    expect(argv.slice(-3)).toEqual(['/g/pids/ws/cgroup.procs', '/g/memory/ws/cgroup.procs', '--']);
  });
});
