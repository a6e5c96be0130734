import { terminalText } from './terminal-text';

describe('terminalText', () => {
  it('takes colour and cursor escapes out', () => {
    expect(terminalText('\x1b[31mred\x1b[0m and \x1b[1;32mbold green\x1b[m\x1b[2K\x1b[1A')).toBe('red and bold green');
    expect(terminalText('\x1b]0;a title\x07text \x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\')).toBe('text link');
    expect(terminalText('\x1b(Bplain\x1b=')).toBe('plain');
  });

  it('applies carriage returns and backspaces as a terminal would, and drops other control characters', () => {
    expect(terminalText('10%\r20%\r100% done\nnext')).toBe('100% done\nnext');
    expect(terminalText('windows\r\nline')).toBe('windows\nline');
    expect(terminalText('abc\b\bX')).toBe('aXc');
    expect(terminalText('bell\x07 and \x00nul\ttab')).toBe('bell and nul\ttab');
  });
});
