/* eslint-disable no-control-regex -- terminal escapes are control characters: matching them is what this file is for */
/**
 * A command's output as a terminal would have shown it, in plain text: colour and cursor
 * escapes (ANSI CSI, OSC titles and links, charset switches) taken out, a carriage return's
 * overwrite applied (a progress bar keeps its last state), a backspace's erase applied, and any
 * other control character dropped, so nothing shows as boxes on a page or in `/output`.
 */
export function terminalText(text: string): string {
  const withoutEscapes = text
    // OSC: ESC ] … BEL or ESC \ (window titles, hyperlinks).
    .replace(/\x1b\][\s\S]*?(?:\x07|\x1b\\)/g, '')
    // CSI: ESC [ parameters intermediates final (colours, cursor moves, erases).
    .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '')
    // Charset designations, then any other two-character escape.
    .replace(/\x1b[()*+\-./][ -~]/g, '')
    .replace(/\x1b[0-~]?/g, '');
  return withoutEscapes
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((line) => overwrite(line))
    .join('\n')
    .replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '');
}

/** One line with its carriage returns (the last write wins, over what it covers) and backspaces applied. */
function overwrite(line: string): string {
  if (!line.includes('\r') && !line.includes('\b')) return line;
  let shown: string[] = [];
  let column = 0;
  for (const char of line) {
    if (char === '\r') column = 0;
    else if (char === '\b') column = Math.max(0, column - 1);
    else {
      shown[column] = char;
      column += 1;
    }
  }
  shown = shown.map((char) => char ?? ' ');
  return shown.join('');
}
