import { execFile } from 'node:child_process';

/** PATH for the host's own tools (mount, mkfs, losetup…): the system folders only. */
export const HOST_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The environment every host tool the sandbox runs gets: built from nothing, so no secret of the worker's reaches it. */
export const HOST_ENV = { PATH: HOST_PATH, LANG: 'C.UTF-8' } as const;

/**
 * Runs one of the host's own tools with our arguments on the worker's own files (never on a
 * path inside a workspace's tree), with no secret in its environment; rejects with its stderr.
 */
export function hostExec(file: string, args: readonly string[], options: { timeoutMs?: number; cwd?: string } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { env: HOST_ENV, timeout: options.timeoutMs ?? 60_000, cwd: options.cwd ?? '/', maxBuffer: 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${file} ${args[0] ?? ''} failed: ${stderr.trim() || error.message}`));
        else resolve(stdout);
      },
    );
  });
}
