import { esc, pageLink, personalise } from './html';
import { inline, markdown } from './markdown';

describe('Markdown for hostile text', () => {
  it('renders what models write: headings, lists, code, quotes, tables, emphasis and links', () => {
    const html = markdown(
      [
        '# Plan',
        'Fix **total()** and _its_ `test`; see https://example.com/a?b=1&c=2.',
        '',
        '- one',
        '- two',
        '',
        '1. first',
        '2. second',
        '',
        '> quoted',
        '',
        '```js',
        'if (a < b) run();',
        '```',
        '',
        '| a | b |',
        '| --- | --- |',
        '| 1 | ~~2~~ |',
      ].join('\n'),
    );
    expect(html).toContain('<h3>Plan</h3>');
    expect(html).toContain('<strong>total()</strong> and <em>its</em> <code>test</code>');
    expect(html).toContain(
      '<a href="https://example.com/a?b=1&amp;c=2" rel="nofollow noopener noreferrer">https://example.com/a?b=1&amp;c=2</a>.',
    );
    expect(html).toContain('<ul><li>one</li><li>two</li></ul>');
    expect(html).toContain('<ol><li>first</li><li>second</li></ol>');
    expect(html).toContain('<blockquote><p>quoted</p></blockquote>');
    expect(html).toContain('<pre class="code" data-lang="js"><code>if (a &lt; b) run();</code></pre>');
    expect(html).toContain('<th>a</th><th>b</th>');
    expect(html).toContain('<td><del>2</del></td>');
  });

  it('never lets markup through: raw HTML is text, only http(s) and mailto link, images become links', () => {
    const html = markdown(
      [
        '<script>alert(1)</script> <img src=x onerror=alert(1)>',
        '[click](javascript:alert(1)) [data](data:text/html,<b>x</b>) [ok](https://example.com/"onmouseover="x)',
        '![pixel](https://tracker.example.com/p.png)',
        '<a href="https://evil.example.com">x</a> `<b>code</b>`',
      ].join('\n'),
    );
    // Only the tags and attributes this renderer makes; everything else is text.
    const tags = [...html.matchAll(/<([a-z0-9]+)([^>]*)>/g)];
    expect(tags.map((tag) => tag[1]).filter((name) => !['p', 'br', 'a', 'code'].includes(name))).toEqual([]);
    expect(
      tags
        .flatMap((tag) => [...tag[2].matchAll(/\s([a-z-]+)=/g)].map((attribute) => attribute[1]))
        .filter((name) => name !== 'href' && name !== 'rel'),
    ).toEqual([]);
    // A raw anchor is text; the address inside it is only linked as itself.
    expect(html).not.toContain('<a href="https://evil.example.com">x</a>');
    expect(html).toContain('>https://evil.example.com</a>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toMatch(/href="(javascript|data):/i);
    expect(html).toContain('[click](javascript:alert(1))');
    expect(html).toContain('href="https://example.com/&quot;onmouseover=&quot;x"');
    expect(html).toContain('<a href="https://tracker.example.com/p.png" rel="nofollow noopener noreferrer">image: pixel</a>');
    expect(html).toContain('<code>&lt;b&gt;code&lt;/b&gt;</code>');
  });

  it('keeps emphasis from spanning markup, so the tags it makes always nest', () => {
    expect(inline('**a *b** c*')).not.toMatch(/<em>[^<]*<\/strong>/);
    expect(inline('a * b * c')).toBe('a * b * c');
    expect(inline('snake_case_name and 2*3*4')).toBe('snake_case_name and 2*3*4');
  });

  it('leaves no way for text to forge a link marker or a kept span', () => {
    const forged = `\u0000${encodeURIComponent('run:victim')}\u0001/output\u0000 \u00020\u0003`;
    const html = `${esc(forged)}${markdown(forged)}`;
    expect(personalise(html, () => 'SIGNED')).not.toContain('SIGNED');
    expect(personalise(`<a href="${pageLink('run:a/task-1')}">x</a>`, (id, suffix) => `/session/${id}${suffix}?k=t`)).toBe(
      '<a href="/session/run:a/task-1?k=t">x</a>',
    );
  });
});
