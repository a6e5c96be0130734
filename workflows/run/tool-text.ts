import type { BashResult, FileResult } from '../../activities/sandbox/types';
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

export function findFilesCommand(input: ToolInput<'find_files'>): string {
  const max = input.maxResults ?? 200;
  return `find . -path ./.git -prune -o -type f -path ${shellQuote(`./${input.glob}`)} -print | sed 's#^./##' | head -n ${max}`;
}

export function listDirectoryCommand(input: ToolInput<'list_directory'>): string {
  return `ls -la ${shellQuote(input.path ?? '.')}`;
}

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
