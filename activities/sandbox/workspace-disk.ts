import { randomBytes } from 'node:crypto';
import { lstat, mkdir, open, readdir, rename, rm, rmdir, stat, chown, chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { hostExec } from './host-exec';
import { mib } from './limits';
import { type WorkspaceLayout } from './workspace-layout';

/**
 * A workspace's files (`/workspace` and `$HOME`) live on a disk of their own: an ext4 image of
 * bounded size (sparse, so it costs what is written), or, where the host cannot mount loop
 * devices or the bound is 0, a folder owned by the workspace's uid. Either way the worker
 * never opens that tree: the holder's bubblewrap (running as the workspace's uid) binds it from
 * a short-lived mount under `/run/switchboard/mnt` that is detached once the sandbox holds it,
 * so the files are visible only inside that sandbox and go away from the host's mount table
 * with it.
 */
export const MOUNT_BASE = '/run/switchboard/mnt';

export interface HolderDisk {
  /** Host paths bubblewrap binds at /workspace and /home/sandbox. */
  work: string;
  home: string;
  /** Detaches the temporary mount once the sandbox holds its own binds. */
  detach(): Promise<void>;
}

export class WorkspaceDisk {
  constructor(private readonly options: { diskMiB: number; images: boolean }) {}

  get usesImage(): boolean {
    return this.options.images && this.options.diskMiB > 0;
  }

  /** Creates the workspace's disk when it has none (the image atomically: absent or whole). */
  async ensure(layout: WorkspaceLayout, uid: number): Promise<void> {
    if (this.usesImage) {
      if (await exists(layout.image)) return;
      const stage = join(layout.state, `stage-${randomBytes(4).toString('hex')}`);
      const building = `${layout.image}.${randomBytes(4).toString('hex')}.tmp`;
      try {
        await mkdir(stage, { mode: 0o700 });
        for (const part of ['work', 'home']) {
          await mkdir(join(stage, part), { mode: 0o755 });
          await chown(join(stage, part), uid, uid);
        }
        const file = await open(building, 'wx', 0o600);
        await file.truncate(mib(this.options.diskMiB));
        await file.close();
        // No reserved blocks (nobody is root inside), a small journal, the parts owned by the workspace's uid.
        await hostExec('mkfs.ext4', ['-q', '-F', '-m', '0', '-J', 'size=4', '-E', `root_owner=${uid}:${uid}`, '-d', stage, building]);
        await rename(building, layout.image);
      } finally {
        await rm(stage, { recursive: true, force: true });
        await rm(building, { force: true });
      }
      return;
    }
    await this.ensureFolder(layout.data, uid, 0o700);
    await this.ensureFolder(layout.work, uid, 0o755);
    await this.ensureFolder(layout.home, uid, 0o755);
  }

  /**
   * A folder owned by the workspace's uid. Only the worker creates these, in its own 0700
   * folder the sandbox never sees, so an existing one is checked (a real folder, not a link),
   * never followed.
   */
  private async ensureFolder(path: string, uid: number, mode: number): Promise<void> {
    const found = await lstat(path).catch(() => undefined);
    if (found && (!found.isDirectory() || found.uid !== uid))
      throw new Error(`${path} is not a folder owned by the workspace's uid ${uid}; remove the workspace to start it afresh`);
    if (found) return;
    await mkdir(path, { mode });
    await chown(path, uid, uid);
    await chmod(path, mode);
  }

  /** Mounts the disk where the holder's bubblewrap (as the workspace's uid) can bind its parts. */
  async mountForHolder(layout: WorkspaceLayout): Promise<HolderDisk> {
    await ensureMountBase();
    const point = join(MOUNT_BASE, randomBytes(8).toString('hex'));
    await mkdir(point, { mode: 0o700 });
    try {
      if (this.usesImage) {
        // One mount of the image at a time: the sandbox before this one must have let go of it.
        await untilDetached(layout.image);
        await hostExec('mount', ['-o', 'loop,nosuid,nodev,noatime', layout.image, point]);
      } else await hostExec('mount', ['--bind', layout.data, point]);
    } catch (error) {
      await rmdir(point).catch(() => undefined);
      throw error;
    }
    return { work: join(point, 'work'), home: join(point, 'home'), detach: () => detach(point) };
  }

  /** Removes the disk: the image file, or the folder's contents as the workspace's uid (never as root). */
  async remove(layout: WorkspaceLayout, uid: number | undefined): Promise<void> {
    await rm(layout.image, { force: true });
    if (uid !== undefined && (await exists(layout.data))) {
      // As the workspace's uid: a tree its commands wrote is deleted with their rights only.
      await hostExec(
        'setpriv',
        [
          '--reuid',
          String(uid),
          '--regid',
          String(uid),
          '--clear-groups',
          '--',
          '/bin/sh',
          '-c',
          'chmod -R u+rwX . 2>/dev/null; rm -rf -- ./* ./.[!.]* ./..?* 2>/dev/null; true',
        ],
        { cwd: layout.data, timeoutMs: 300_000 },
      );
    }
  }
}

/**
 * A host folder mounted where a holder's bubblewrap (as the workspace's uid) can bind it, like the
 * disk: a fresh point under MOUNT_BASE, detached once the sandbox holds its own bind. The caller
 * vouches that nothing a sandbox wrote lies on the source's path (root follows links here).
 */
export async function bindForHolder(source: string): Promise<{ path: string; detach(): Promise<void> }> {
  await ensureMountBase();
  const point = join(MOUNT_BASE, randomBytes(8).toString('hex'));
  await mkdir(point, { mode: 0o700 });
  try {
    await hostExec('mount', ['--bind', source, point]);
  } catch (error) {
    await rmdir(point).catch(() => undefined);
    throw error;
  }
  return { path: point, detach: () => detach(point) };
}

/** `/run/switchboard/mnt`: root's, traversable (so a uid can reach the one mount it is given), not listable. */
async function ensureMountBase(): Promise<void> {
  await mkdir(MOUNT_BASE, { recursive: true, mode: 0o711 });
  for (const folder of ['/run/switchboard', MOUNT_BASE]) {
    const found = await lstat(folder);
    if (!found.isDirectory() || found.uid !== 0) throw new Error(`${folder} must be a folder owned by root`);
    await chmod(folder, 0o711);
  }
}

/**
 * Waits until no loop device is backed by the image. A sandbox that was just killed lets go of
 * it when its mount namespace is torn down, a moment after its last process; mounting the same
 * filesystem twice at once would corrupt it.
 */
async function untilDetached(image: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const attached = (await hostExec('losetup', ['-j', image])).trim();
    if (!attached) return;
    // A worker killed while it started a sandbox leaves its short-lived mount behind: nothing
    // else mounts under MOUNT_BASE, so such a mount of this image is detached here.
    for (const device of attached.split('\n').map((line) => line.split(':')[0])) {
      const targets = await hostExec('findmnt', ['-rn', '-S', device, '-o', 'TARGET']).catch(() => '');
      for (const target of targets.split('\n').filter((line) => line.startsWith(`${MOUNT_BASE}/`))) await detach(target);
    }
    if (Date.now() > deadline) throw new Error(`the workspace disk is still in use by an earlier sandbox (${attached.split('\n')[0]})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function detach(point: string): Promise<void> {
  await hostExec('umount', ['-l', point]).catch(() => undefined);
  await rmdir(point).catch(() => undefined);
}

/** Mounts a worker died holding (older than a minute: another worker may be starting a sandbox right now). */
export async function sweepMounts(now = Date.now()): Promise<number> {
  let swept = 0;
  for (const entry of await readdir(MOUNT_BASE).catch(() => [] as string[])) {
    const point = join(MOUNT_BASE, entry);
    const found = await stat(point).catch(() => undefined);
    if (!found || now - found.ctimeMs < 60_000) continue;
    await detach(point);
    swept += 1;
  }
  return swept;
}

async function exists(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined)) !== undefined;
}

/** Whether this host can mount a loop-backed ext4 image (mkfs.ext4, mount and a loop device). */
export async function imagesSupported(): Promise<{ ok: boolean; reason?: string }> {
  const dir = join('/run/switchboard', `probe-${randomBytes(4).toString('hex')}`);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const image = join(dir, 'disk.img');
    const file = await open(image, 'wx', 0o600);
    await file.truncate(mib(8));
    await file.close();
    await hostExec('mkfs.ext4', ['-q', '-F', '-m', '0', image]);
    await mkdir(join(dir, 'mnt'));
    await hostExec('mount', ['-o', 'loop,nosuid,nodev', image, join(dir, 'mnt')]);
    await hostExec('umount', [join(dir, 'mnt')]);
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
