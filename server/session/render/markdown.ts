import { esc } from './html';

/**
 * Markdown to HTML for hostile text (a model's answer, a review's body): every character is
 * escaped first and markup is only ever made by this code. No raw HTML passes; links go only to
 * http(s) and mailto; images become links (a page never fetches what a run names). The subset is
 * what models write: headings, paragraphs, fenced code, quotes, lists, tables, rules, and inline
 * code, bold, italics, strikethrough and links.
 */
export function markdown(source: string): string {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const fence = /^\s{0,3}(```+|~~~+)\s*([\w+.-]*)/.exec(line);
    if (fence) {
      const close = fence[1];
      const body: string[] = [];
      for (i += 1; i < lines.length && !lines[i].trim().startsWith(close); i += 1) body.push(lines[i]);
      i += 1;
      const lang = fence[2] ? ` data-lang="${esc(fence[2])}"` : '';
      out.push(`<pre class="code"${lang}><code>${esc(body.join('\n'))}</code></pre>`);
      continue;
    }
    if (!line.trim()) {
      i += 1;
      continue;
    }
    const heading = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      // A run's headings sit under the page's own: they start at h3.
      const level = Math.min(6, heading[1].length + 2);
      out.push(`<h${level}>${inline(heading[2])}</h${level}>`);
      i += 1;
      continue;
    }
    if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
      out.push('<hr>');
      i += 1;
      continue;
    }
    if (/^\s{0,3}>/.test(line)) {
      const quoted: string[] = [];
      for (; i < lines.length && /^\s{0,3}>/.test(lines[i]); i += 1) quoted.push(lines[i].replace(/^\s{0,3}>\s?/, ''));
      out.push(`<blockquote>${markdown(quoted.join('\n'))}</blockquote>`);
      continue;
    }
    const listKind = listMarker(line);
    if (listKind) {
      const items: string[] = [];
      while (i < lines.length && listMarker(lines[i]) === listKind) {
        const item = [lines[i].replace(/^\s*(?:[-*+]|\d{1,9}[.)])\s+/, '')];
        for (i += 1; i < lines.length && /^\s{2,}\S/.test(lines[i]) && !listMarker(lines[i]); i += 1) item.push(lines[i].trim());
        items.push(`<li>${inline(item.join(' '))}</li>`);
      }
      out.push(listKind === 'ol' ? `<ol>${items.join('')}</ol>` : `<ul>${items.join('')}</ul>`);
      continue;
    }
    if (isTableStart(lines, i)) {
      const header = cells(lines[i]);
      const rows: string[][] = [];
      for (i += 2; i < lines.length && lines[i].includes('|') && lines[i].trim(); i += 1) rows.push(cells(lines[i]));
      out.push(
        `<div class="table"><table><thead><tr>${header.map((cell) => `<th>${inline(cell)}</th>`).join('')}</tr></thead><tbody>` +
          rows.map((row) => `<tr>${row.map((cell) => `<td>${inline(cell)}</td>`).join('')}</tr>`).join('') +
          '</tbody></table></div>',
      );
      continue;
    }
    const paragraph: string[] = [];
    for (; i < lines.length && lines[i].trim() && !startsBlock(lines, i); i += 1) paragraph.push(lines[i]);
    if (paragraph.length === 0) paragraph.push(lines[i++]);
    out.push(`<p>${paragraph.map((text) => inline(text.trim())).join('<br>')}</p>`);
  }
  return out.join('\n');
}

function listMarker(line: string): 'ul' | 'ol' | undefined {
  if (/^\s{0,3}[-*+]\s+\S/.test(line)) return 'ul';
  if (/^\s{0,3}\d{1,9}[.)]\s+\S/.test(line)) return 'ol';
  return undefined;
}

function isTableStart(lines: readonly string[], i: number): boolean {
  return (lines[i] ?? '').includes('|') && /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(lines[i + 1] ?? '');
}

function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

function startsBlock(lines: readonly string[], i: number): boolean {
  const line = lines[i];
  return (
    /^\s{0,3}(```|~~~|#{1,6}\s|>)/.test(line) ||
    Boolean(listMarker(line)) ||
    isTableStart(lines, i) ||
    /^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)
  );
}

/** Inline markup on escaped text; code spans are set aside first so nothing inside them is read as markup. */
export function inline(text: string): string {
  const kept: string[] = [];
  const keep = (html: string) => `\u0002${kept.push(html) - 1}\u0003`;
  // eslint-disable-next-line no-control-regex -- STX and ETX delimit the kept spans: no text may carry one
  let html = esc(text.replace(/[\u0002\u0003]/g, '\uFFFD'));
  html = html.replace(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g, (_m, _ticks: string, code: string) => keep(`<code>${code.trim()}</code>`));
  // ![alt](url) and [text](url): the URL as written, escaped; only http(s) and mailto become links.
  html = html.replace(
    /(!?)\[([^\]]*)\]\(\s*([^)\s]+)(?:\s+&quot;[^)]*&quot;)?\s*\)/g,
    (match, bang: string, label: string, url: string) => {
      const href = safeHref(url);
      if (!href) return match;
      const words = bang ? `image: ${label || href}` : label || url;
      return keep(`<a href="${href}" rel="nofollow noopener noreferrer">${words}</a>`);
    },
  );
  html = html.replace(/&lt;((?:https?:\/\/|mailto:)[^\s&]+)&gt;/g, (match, url: string) => {
    const href = safeHref(url);
    return href ? keep(`<a href="${href}" rel="nofollow noopener noreferrer">${url}</a>`) : match;
  });
  html = html.replace(/\bhttps?:\/\/(?:(?!&quot;|&#39;|&lt;|&gt;)[^\s<])+/g, (found) => {
    const url = found.replace(/(?:[.,;:!?)\]]|&amp;)+$/, '');
    const href = safeHref(url);
    return href ? `${keep(`<a href="${href}" rel="nofollow noopener noreferrer">${url}</a>`)}${found.slice(url.length)}` : found;
  });
  // Emphasis never spans markup (no < or > inside), so the tags it makes always nest.
  html = html
    .replace(/(\*\*|__)(?=[^\s<>])([^<>]*?[^\s<>])\1/g, '<strong>$2</strong>')
    .replace(/(^|[^\w*])\*(?=[^\s<>*])([^*<>]*?[^\s<>*])\*(?!\*)/g, '$1<em>$2</em>')
    .replace(/(^|[^\w])_(?=[^\s<>_])([^_<>]*?[^\s<>_])_(?!\w)/g, '$1<em>$2</em>')
    .replace(/~~(?=[^\s<>])([^<>]*?[^\s<>])~~/g, '<del>$1</del>');
  // eslint-disable-next-line no-control-regex -- the kept spans' delimiters
  return html.replace(/\u0002(\d+)\u0003/g, (_m, index: string) => kept[Number(index)] ?? '');
}

/** An escaped URL as an attribute value when it is http(s) or mailto; undefined otherwise. */
function safeHref(escaped: string): string | undefined {
  const url = escaped
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"');
  if (!/^(https?:\/\/|mailto:)/i.test(url)) return undefined;
  try {
    const parsed = new URL(url);
    if (!['http:', 'https:', 'mailto:'].includes(parsed.protocol)) return undefined;
  } catch {
    return undefined;
  }
  return esc(url);
}
