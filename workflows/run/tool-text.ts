import type { BashResult, FileResult } from '../contracts/sandbox';
import type { ToolInput } from '../../tools';

/** Quotes a value for a POSIX shell: the model's text is data, never syntax. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function grepCommand(input: ToolInput<'grep'>): string {
  const max = input.maxResults ?? 200;
  const glob = input.glob ? ` --include=${shellQuote(input.glob)}` : '';
  const path = shellQuote(input.path ?? '.');
  return `grep -rnE${glob} --exclude-dir=.git -e ${shellQuote(input.pattern)} ${path} | head -n ${max}`;
}

/**
 * find_files: newest first, as its description says (modification time, then the path). `legacy`:
 * the command of runs recorded before (walk order), for their replay.
 */
export function findFilesCommand(input: ToolInput<'find_files'>, legacy = false): string {
  const max = input.maxResults ?? 200;
  const glob = shellQuote(`./${input.glob}`);
  if (legacy) return `find . -path ./.git -prune -o -type f -path ${glob} -print | sed 's#^./##' | head -n ${max}`;
  return `find . -path ./.git -prune -o -type f -path ${glob} -printf '%T@ %P\\n' | sort -k1,1nr -k2 | head -n ${max} | cut -d' ' -f2-`;
}

/** list_directory: `-p` marks folders with a trailing slash, as its description says (`legacy`: runs recorded before). */
export function listDirectoryCommand(input: ToolInput<'list_directory'>, legacy = false): string {
  return `ls -la${legacy ? '' : 'p'} ${shellQuote(input.path ?? '.')}`;
}

/** The `patched()` id of find_files sorting newest first and list_directory marking folders (docs/versioning.md). */
export const HONEST_LISTINGS = 'find-files-newest-ls-marks-folders';

export function describeBash(result: BashResult): string {
  const lines = [`exit code ${result.exitCode}${result.timedOut ? ' (timed out)' : ''}`];
  if (result.output) lines.push(result.output);
  if (result.truncated) lines.push('[output truncated]');
  if (result.hint) lines.push(result.hint);
  if (result.savedOutput) lines.push(`[full output saved at ${result.savedOutput}]`);
  return lines.join('\n');
}

export function describeFile(result: Extract<FileResult, { ok: true }>): string {
  const note = result.truncated ? '\n[truncated: read further with offset]' : '';
  return `${result.path} (${result.bytes} bytes):\n${result.content ?? ''}${note}`;
}
