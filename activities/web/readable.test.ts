import { toReadable } from './readable';

const ARTICLE = `<!doctype html><html><head><title>Release notes | Example</title></head><body>
<nav><a href="/">Home</a> <a href="/pricing">Pricing</a> menu menu menu</nav>
<article><h1>Version 2.0 released</h1>
<p>${'The new scheduler replaces the old queue and cuts latency for every workload we measured. '.repeat(6)}</p>
<p>Read the <a href="/docs/migrate">migration guide</a> before upgrading.</p>
<pre><code>npm install example@2</code></pre></article>
<footer>Copyright footer text</footer><script>window.tracking = true;</script></body></html>`;

describe('toReadable', () => {
  it('reduces an HTML page to its article as Markdown, with absolute links', async () => {
    const page = await toReadable('https://example.test/blog/v2', 'text/html; charset=utf-8', Buffer.from(ARTICLE));
    expect(page.kind).toBe('html');
    expect(page.title).toContain('Release notes');
    expect(page.text).toContain('The new scheduler replaces the old queue');
    expect(page.text).toContain('[migration guide](https://example.test/docs/migrate)');
    expect(page.text).toContain('```\nnpm install example@2\n```');
    expect(page.text).not.toContain('window.tracking');
    expect(page.text).not.toContain('Copyright footer');
  });

  it('keeps a short page that has no article', async () => {
    const page = await toReadable(
      'https://example.test/',
      'text/html',
      Buffer.from('<html><body><p>Only <b>this</b>.</p><script>x()</script></body></html>'),
    );
    expect(page).toMatchObject({ kind: 'html', text: 'Only **this**.' });
  });

  it('returns text and JSON as they are (JSON indented)', async () => {
    expect(await toReadable('u', 'text/plain', Buffer.from('plain words'))).toEqual({ kind: 'text', text: 'plain words' });
    expect(await toReadable('u', 'application/json', Buffer.from('{"a":[1,2]}'))).toEqual({
      kind: 'json',
      text: '{\n  "a": [\n    1,\n    2\n  ]\n}',
    });
    expect(await toReadable('u', 'application/json', Buffer.from('{"cut'))).toEqual({ kind: 'json', text: '{"cut' });
  });

  it('describes a PDF by title, pages and size', async () => {
    const pdf = Buffer.from(
      '%PDF-1.4\n1 0 obj <</Type /Page>> 2 0 obj <</Type /Page>> 3 0 obj <</Type /Pages>> <</Title (Annual \\(draft\\) report)>>',
    );
    const page = await toReadable('u', 'application/pdf', pdf);
    expect(page).toMatchObject({ kind: 'pdf', title: 'Annual (draft) report' });
    expect(page.text).toBe(`(PDF document, ${pdf.length} bytes, 2 pages, titled "Annual (draft) report"; its text is not extracted)`);
    const utf16 = Buffer.from('%PDF-1.7 <</Title <FEFF00480069>>>');
    expect((await toReadable('u', '', utf16)).title).toBe('Hi');
  });

  it('describes other binaries by type and size', async () => {
    expect(await toReadable('u', 'image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0]))).toEqual({
      kind: 'binary',
      text: '(binary content of type image/png, 5 bytes; not shown)',
    });
  });
});
