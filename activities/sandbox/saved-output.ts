import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { DEFAULT_FILE_LIMITS, writeWorkspaceFile } from './files';
import { type IsolationMode } from './isolation';
import { SANDBOX_VIEW, type WorkspaceLayout } from './workspace-layout';

/** Output longer than this is also kept in the workspace, so the run may later show the model only its head and tail. */
export const SAVE_OUTPUT_OVER_CHARS = 4_000;

/**
 * Keeps a long command output in the workspace's private tmp, named by its content (a
 * retried call writes the same file), and returns the path as the command sees it; the
 * write goes through the workspace's guarded open, so a link planted there cannot divert it.
 */
export async function saveLongOutput(layout: WorkspaceLayout, mode: IsolationMode, output: string): Promise<string | undefined> {
  if (output.length <= SAVE_OUTPUT_OVER_CHARS) return undefined;
  const name = `${createHash('sha256').update(output).digest('hex').slice(0, 16)}.txt`;
  const written = await writeWorkspaceFile(layout, join(SANDBOX_VIEW.tmp, 'switchboard-output', name), output, DEFAULT_FILE_LIMITS);
  if (!written.ok) return undefined;
  return join(mode === 'bwrap' ? SANDBOX_VIEW.tmp : layout.tmp, 'switchboard-output', name);
}
