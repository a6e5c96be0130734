/**
 * Slack message text is best kept under 4 000 characters; longer answers go as several
 * messages. Each part stays under this limit including a reopened code fence.
 */
export const SLACK_TEXT_LIMIT = 3_900;

/**
 * Prepares an answer for Slack: Markdown tables (a claim table) go into code blocks, since
 * Slack has no table markup, and links to files become their paths in code, since files
 * are named, never attached.
 */
export function formatForSlack(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  let fenced = false;
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index];
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (!fenced && isTableRow(line)) {
      const table: string[] = [];
      while (index < lines.length && isTableRow(lines[index])) table.push(lines[index++]);
      index -= 1;
      out.push('```', ...table, '```');
      continue;
    }
    out.push(fenced ? line : line.replace(/\[([^\]]+)\]\((?!https?:|mailto:)([^)\s]+)\)/g, '`$2`'));
  }
  return out.join('\n');
}

/**
 * Splits text into parts of at most `limit` characters at line boundaries. A code block cut
 * by a split is closed at the end of one part and reopened (with its language) at the start
 * of the next, so every part renders on its own.
 */
export function splitForSlack(text: string, limit = SLACK_TEXT_LIMIT): string[] {
  const parts: string[] = [];
  let current: string[] = [];
  let length = 0;
  let fence: string | undefined;
  const reserve = (opening: string | undefined) => (opening ? opening.length + 5 : 0);

  const flush = () => {
    if (current.length === 0) return;
    if (fence !== undefined) current.push('```');
    parts.push(current.join('\n'));
    current = fence !== undefined ? [fence] : [];
    length = fence !== undefined ? fence.length + 1 : 0;
  };

  for (const whole of text.split('\n')) {
    for (const line of hardWrap(whole, limit - 20)) {
      if (length + line.length + 1 + reserve(fence) > limit && current.length > (fence !== undefined ? 1 : 0)) flush();
      current.push(line);
      length += line.length + 1;
      const marker = line.trim().match(/^```(\S*)/);
      if (marker) fence = fence === undefined ? `\`\`\`${marker[1] ?? ''}` : undefined;
    }
  }
  if (current.length > 0) {
    // A fence the author left open stays as written.
    parts.push(current.join('\n'));
  }
  return parts.filter((part) => part.trim() !== '' && part.trim() !== '```');
}

function hardWrap(line: string, width: number): string[] {
  if (line.length <= width) return [line];
  const pieces: string[] = [];
  for (let start = 0; start < line.length; start += width) pieces.push(line.slice(start, start + width));
  return pieces;
}

function isTableRow(line: string): boolean {
  return /^\s*\|.*\|\s*$/.test(line);
}
