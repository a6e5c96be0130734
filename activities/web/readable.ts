export type ReadableKind = 'html' | 'text' | 'json' | 'pdf' | 'binary';

export interface ReadablePage {
  kind: ReadableKind;
  title?: string;
  /** Markdown for HTML, the text itself for text and JSON, a description for PDFs and binaries. */
  text: string;
}

/**
 * Turns a fetched body into what a model can read: HTML through Readability (the main
 * article, without navigation and boilerplate) and then to Markdown; text and JSON as they
 * are; a PDF by its title, page count and size; anything else by its type and size.
 */
export async function toReadable(url: string, contentType: string, body: Buffer): Promise<ReadablePage> {
  const type = contentType.split(';')[0].trim().toLowerCase();
  if (type === 'application/pdf' || body.subarray(0, 5).toString('latin1') === '%PDF-') return describePdf(body);
  const text = decode(body, contentType);
  if (type === 'text/html' || type === 'application/xhtml+xml' || (!type && /^\s*(<!doctype html|<html)/i.test(text))) {
    return htmlToMarkdown(url, text);
  }
  if (type === 'application/json' || type.endsWith('+json')) return { kind: 'json', text: prettyJson(text) };
  if (type.startsWith('text/') || type === 'application/xml' || type.endsWith('+xml') || type === 'application/javascript') {
    return { kind: 'text', text };
  }
  if (!type && !body.subarray(0, 8_000).includes(0)) return { kind: 'text', text };
  return { kind: 'binary', text: `(binary content of type ${type || 'unknown'}, ${body.length} bytes; not shown)` };
}

function decode(body: Buffer, contentType: string): string {
  const declared =
    /charset=["']?([\w-]+)/i.exec(contentType)?.[1] ??
    /<meta[^>]+charset=["']?([\w-]+)/i.exec(body.subarray(0, 2048).toString('latin1'))?.[1];
  try {
    return new TextDecoder(declared ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

async function htmlToMarkdown(url: string, html: string): Promise<ReadablePage> {
  // Loaded on the first HTML page, not when the worker starts (together about half a second).
  const [{ Readability }, { parseHTML }, { default: TurndownService }] = await Promise.all([
    import('@mozilla/readability'),
    import('linkedom'),
    import('turndown'),
  ]);
  const { document } = parseHTML(html);
  // Readability resolves relative links against the document's URI; linkedom has none of its own.
  for (const key of ['baseURI', 'documentURI', 'URL']) {
    Object.defineProperty(document, key, { value: url, configurable: true });
  }
  const pageTitle = document.querySelector('title')?.textContent?.trim() || undefined;
  let article: { title?: string | null; content?: string | null } | null = null;
  try {
    article = new Readability(document, { charThreshold: 200 }).parse();
  } catch {
    article = null;
  }
  const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  turndown.remove(['script', 'style', 'noscript', 'iframe', 'form']);
  let markdown: string;
  if (article?.content) {
    markdown = turndown.turndown(article.content);
  } else {
    // No article found (a short page, an index): the whole body, without its scripts and styles.
    const { document: fallback } = parseHTML(html);
    markdown = turndown.turndown(fallback.querySelector('body')?.innerHTML ?? html);
  }
  const title = article?.title?.trim() || pageTitle;
  return { kind: 'html', ...(title ? { title } : {}), text: markdown.replace(/\n{3,}/g, '\n\n').trim() };
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** A PDF by what can be read without a PDF engine: its Info title, its page count, its size. */
function describePdf(body: Buffer): ReadablePage {
  const raw = body.toString('latin1');
  const literal = /\/Title\s*\(((?:\\.|[^\\)])*)\)/.exec(raw)?.[1];
  const hex = /\/Title\s*<([0-9A-Fa-f\s]+)>/.exec(raw)?.[1];
  const title = literal !== undefined ? unescapePdfString(literal) : hex !== undefined ? decodePdfHex(hex) : undefined;
  const pages = (raw.match(/\/Type\s*\/Page(?![s\w])/g) ?? []).length;
  const facts = [`PDF document, ${body.length} bytes`, ...(pages ? [`${pages} pages`] : [])].join(', ');
  return {
    kind: 'pdf',
    ...(title ? { title } : {}),
    text: `(${facts}${title ? `, titled "${title}"` : ''}; its text is not extracted)`,
  };
}

function unescapePdfString(value: string): string {
  return value.replace(/\\([nrtbf()\\]|[0-7]{1,3})/g, (_match, code: string) => {
    const map: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', '(': '(', ')': ')', '\\': '\\' };
    return map[code] ?? String.fromCharCode(parseInt(code, 8));
  });
}

function decodePdfHex(hex: string): string {
  const bytes = Buffer.from(hex.replace(/\s+/g, ''), 'hex');
  // A UTF-16BE string starts with its byte-order mark.
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  return bytes.toString('latin1');
}
