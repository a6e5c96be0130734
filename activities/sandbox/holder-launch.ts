import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { joinCgroupsArgv, type WorkspaceCgroup } from './cgroups';
import { startHolder, type HolderRecord } from './holder';
import { holderArguments, SANDBOX_GROUP, SANDBOX_PASSWD, type IsolationCheck } from './isolation';
import { type SandboxLimits } from './limits';
import { seccompFilter } from './seccomp';
import { bindForHolder, WorkspaceDisk } from './workspace-disk';
import { bindLabels, type HolderBind } from './holder-binds';
import { type WorkspaceLayout } from './workspace-layout';

export interface HolderLaunch {
  layout: WorkspaceLayout;
  isolation: IsolationCheck;
  uid: number;
  cgroup?: WorkspaceCgroup;
  limits: SandboxLimits;
  dataDir: string;
  hiddenPaths: readonly string[];
  owner?: string;
  /** Read-only folders besides the disk (a repository's object cache). */
  binds?: readonly HolderBind[];
}

/**
 * Starts a workspace's holder on its bounds: its cgroups made, its disk made (once) and mounted
 * where the workspace's uid can bind it, the seccomp program and the sandbox's passwd and group
 * written to the worker's own state folder, and the short-lived mount detached again once the
 * sandbox holds its binds. The caller has ended whatever ran as the uid before.
 */
export async function launchHolder(launch: HolderLaunch): Promise<HolderRecord> {
  const { layout, isolation, uid, cgroup, limits } = launch;
  await cgroup?.create(limits);
  const disk = new WorkspaceDisk({ diskMiB: limits.diskMiB, images: isolation.diskImages === true });
  await disk.ensure(layout, uid);
  const mounted = await disk.mountForHolder(layout);
  const extra: Array<{ path: string; target: string; detach(): Promise<void> }> = [];
  try {
    for (const bind of launch.binds ?? []) extra.push({ ...(await bindForHolder(bind.source)), target: bind.target });
    const files = { seccomp: join(layout.state, 'seccomp.bpf'), passwd: join(layout.state, 'passwd'), group: join(layout.state, 'group') };
    await writeFile(files.seccomp, seccompFilter(isolation.seccomp), { mode: 0o600 });
    await writeFile(files.passwd, SANDBOX_PASSWD, { mode: 0o600 });
    await writeFile(files.group, SANDBOX_GROUP, { mode: 0o600 });
    return await startHolder(layout, {
      cgroupPrefix: joinCgroupsArgv(cgroup?.procsFiles() ?? []),
      uid,
      args: holderArguments({ ...mounted, readOnly: extra.map((bind) => ({ source: bind.path, target: bind.target })) }, limits, {
        dataDir: launch.dataDir,
        hiddenPaths: launch.hiddenPaths,
      }),
      ...files,
      ...(launch.owner ? { owner: launch.owner } : {}),
      ...(launch.binds?.length ? { binds: bindLabels(launch.binds) } : {}),
    });
  } finally {
    await mounted.detach();
    for (const bind of extra) await bind.detach();
  }
}
