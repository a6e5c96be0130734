import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { type WorkspaceFiles } from './files';
import { type SandboxTarget } from './sandbox-host';

/** Output longer than this is also kept in the workspace, so the run may later show the model only its head and tail. */
export const SAVE_OUTPUT_OVER_CHARS = 4_000;

/**
 * Keeps a long command output in the workspace's private tmp, named by its content (a
 * retried call writes the same file), and returns the path as the command sees it; the
 * write happens inside the sandbox like every file tool's, so a link planted there cannot divert it.
 */
export async function saveLongOutput(files: WorkspaceFiles, prepared: SandboxTarget, output: string): Promise<string | undefined> {
  if (output.length <= SAVE_OUTPUT_OVER_CHARS) return undefined;
  const name = `${createHash('sha256').update(output).digest('hex').slice(0, 16)}.txt`;
  const path = join(prepared.roots.tmp, 'switchboard-output', name);
  const written = await files.write(path, output);
  return written.ok ? path : undefined;
}
