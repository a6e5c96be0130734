import { formatForSlack, splitForSlack } from './reply-format';

describe('splitForSlack', () => {
  it('keeps a short answer whole', () => {
    expect(splitForSlack('one\ntwo')).toEqual(['one\ntwo']);
  });

  it('splits at line boundaries under the limit', () => {
    const text = Array.from({ length: 50 }, (_, index) => `line ${index} ${'x'.repeat(20)}`).join('\n');
    const parts = splitForSlack(text, 300);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(300);
    expect(parts.join('\n')).toBe(text);
  });

  it('closes a code block at a split and reopens it with its language', () => {
    const code = Array.from({ length: 40 }, (_, index) => `const value${index} = ${index};`).join('\n');
    const text = `Here is the change:\n\`\`\`ts\n${code}\n\`\`\`\nThat is all.`;
    const parts = splitForSlack(text, 400);
    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(400);
      expect((part.match(/```/g) ?? []).length % 2).toBe(0);
    }
    expect(parts[1].startsWith('```ts\n')).toBe(true);
    expect(parts.at(-1)!.endsWith('That is all.')).toBe(true);
    const rejoined = parts.join('\n').replace(/\n```\n```ts\n/g, '\n');
    expect(rejoined).toBe(text);
  });

  it('cuts a single line longer than the limit', () => {
    const parts = splitForSlack('y'.repeat(1_000), 300);
    expect(parts.join('')).toBe('y'.repeat(1_000));
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(300);
  });
});

describe('formatForSlack', () => {
  it('puts a claim table in a code block', () => {
    const text = 'Claims:\n| claim | verdict |\n| --- | --- |\n| tests pass | verified |\nDone.';
    expect(formatForSlack(text)).toBe('Claims:\n```\n| claim | verdict |\n| --- | --- |\n| tests pass | verified |\n```\nDone.');
  });

  it('leaves a table already in a code block alone', () => {
    const text = '```\n| a | b |\n```';
    expect(formatForSlack(text)).toBe(text);
  });

  it('names files by path instead of linking them as attachments', () => {
    expect(formatForSlack('See [the report](reports/run.md) and [docs](https://example.com/x).')).toBe(
      'See `reports/run.md` and [docs](https://example.com/x).',
    );
  });
});
