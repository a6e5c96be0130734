import { randomUUID } from 'node:crypto';
import { chown, mkdir, readFile, rename, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ClaimCheckMissingError, type ClaimCheckStore } from './claim-check-codec';

/**
 * Claim-check payloads as files under one folder, `<dir>/<first two hex>/<hex>`. Every
 * worker and client of one deployment must see the same folder (one host, or a shared
 * mount); a cluster of hosts uses the S3-compatible store instead.
 */
export class DirectoryStore implements ClaimCheckStore {
  readonly description: string;

  constructor(private readonly dir: string) {
    this.description = `the folder ${dir}`;
  }

  private pathFor(key: string): { folder: string; file: string } {
    const hex = key.replace(/^sha256:/, '');
    if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`not a claim-check key: ${key}`);
    const folder = join(this.dir, hex.slice(0, 2));
    return { folder, file: join(folder, hex) };
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const { folder, file } = this.pathFor(key);
    const present = await stat(file).then(
      (found) => found.size === bytes.length,
      () => false,
    );
    // A payload written again is referenced again: its mtime says so, and pruning (cli/payloads)
    // keeps it. A file pruned meanwhile (ENOENT) is simply written afresh.
    if (present && (await touch(file))) return;
    const made = await mkdir(folder, { recursive: true });
    const owner = await this.ownerToKeep();
    if (made && owner) await chown(folder, owner.uid, owner.gid);
    // Written aside and renamed, so a reader never sees half a payload.
    const partial = `${file}.${randomUUID()}.partial`;
    await writeFile(partial, bytes);
    if (owner) await chown(partial, owner.uid, owner.gid);
    await rename(partial, file);
  }

  /**
   * A root worker sharing the folder with a server that runs as the folder's owner
   * (docs/deploy.md) writes as that owner, so the server can write beside it and refresh what
   * root wrote. Undefined when we are not root or root owns the folder.
   */
  private async ownerToKeep(): Promise<{ uid: number; gid: number } | undefined> {
    if (process.getuid?.() !== 0) return undefined;
    this.owner ??= stat(this.dir).then(
      (found) => (found.uid === 0 ? undefined : { uid: found.uid, gid: found.gid }),
      () => undefined,
    );
    return this.owner;
  }

  private owner?: Promise<{ uid: number; gid: number } | undefined>;

  async get(key: string): Promise<Uint8Array> {
    const { file } = this.pathFor(key);
    try {
      return await readFile(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new ClaimCheckMissingError(
          `claim-check payload ${key} is missing from ${this.description}: every worker and client must share payloads.dir`,
        );
      }
      throw error;
    }
  }
}

/** Sets the file's times to now; false when it is gone. */
async function touch(file: string): Promise<boolean> {
  const now = new Date();
  try {
    await utimes(file, now, now);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
