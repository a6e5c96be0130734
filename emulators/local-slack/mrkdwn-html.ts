/** Who `<@U…>` and `<#C…>` name, for rendering mentions as Slack shows them. */
export interface NameLookup {
  user(id: string): string | undefined;
  channel(id: string): string | undefined;
}

/** The emoji Switchboard's cards and replies use, and a few that people type; others stay as `:name:`. */
const EMOJI: Record<string, string> = {
  hourglass_flowing_sand: '⏳',
  hourglass: '⌛',
  thought_balloon: '💭',
  hammer_and_wrench: '🛠️',
  memo: '📝',
  checkered_flag: '🏁',
  white_check_mark: '✅',
  heavy_check_mark: '✔️',
  octagonal_sign: '🛑',
  alarm_clock: '⏰',
  repeat: '🔁',
  scissors: '✂️',
  moneybag: '💰',
  x: '❌',
  warning: '⚠️',
  eyes: '👀',
  rocket: '🚀',
  tada: '🎉',
  wave: '👋',
  '+1': '👍',
  thumbsup: '👍',
  robot_face: '🤖',
  mag: '🔍',
  bug: '🐛',
  wrench: '🔧',
  speech_balloon: '💬',
  link: '🔗',
  large_green_circle: '🟢',
  red_circle: '🔴',
};

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Slack escapes only `&`, `<` and `>` in message text; undo that before escaping for HTML. */
function decodeSlack(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

export function emoji(html: string): string {
  return html.replace(/:([a-z0-9_+-]+):/g, (whole, name: string) => EMOJI[name] ?? whole);
}

/** Plain text (a `plain_text` object): escaped, with emoji when Slack would show them. */
export function plainToHtml(text: string, withEmoji = true): string {
  const html = escapeHtml(text).replace(/\n/g, '<br>');
  return withEmoji ? emoji(html) : html;
}

/**
 * Slack's mrkdwn as Slack renders it, close enough for a person watching: code blocks,
 * block quotes, inline code, bold, italic, strike, links, mentions and emoji. Everything
 * from the text is escaped; the only markup is what this function writes.
 */
export function mrkdwnToHtml(text: string, names: NameLookup): string {
  const parts = text.split(/```/);
  return parts
    .map((part, index) => {
      // Odd parts are inside a code block, shown exactly as written.
      if (index % 2 === 1) return `<pre class="code">${escapeHtml(decodeSlack(part.replace(/^\n/, '')))}</pre>`;
      return blockText(part, names);
    })
    .join('');
}

/** Lines outside code blocks: runs of `>` lines become one quote. */
function blockText(text: string, names: NameLookup): string {
  const out: string[] = [];
  let quote: string[] = [];
  const flushQuote = () => {
    if (quote.length > 0) out.push(`<blockquote>${quote.join('<br>')}</blockquote>`);
    quote = [];
  };
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    const quoted = /^(?:>|&gt;)\s?(.*)$/.exec(line);
    if (quoted) {
      quote.push(inline(quoted[1], names));
      return;
    }
    flushQuote();
    out.push(inline(line, names) + (index < lines.length - 1 ? '<br>' : ''));
  });
  flushQuote();
  return out.join('');
}

/** One line: `<…>` tokens and inline code are taken out first, the rest is formatted. */
function inline(line: string, names: NameLookup): string {
  const pieces: string[] = [];
  const token = /<([^<>\n]+)>|`([^`\n]+)`/g;
  let last = 0;
  for (const match of line.matchAll(token)) {
    pieces.push(styled(line.slice(last, match.index)));
    pieces.push(match[1] !== undefined ? special(match[1], names) : `<code>${escapeHtml(decodeSlack(match[2]))}</code>`);
    last = match.index + match[0].length;
  }
  pieces.push(styled(line.slice(last)));
  return pieces.join('');
}

function styled(text: string): string {
  if (!text) return '';
  const html = escapeHtml(decodeSlack(text))
    .replace(/(^|[\s(])\*([^*\n]+?)\*(?=$|[\s.,;:!?)])/g, '$1<b>$2</b>')
    .replace(/(^|[\s(])_([^_\n]+?)_(?=$|[\s.,;:!?)])/g, '$1<i>$2</i>')
    .replace(/(^|[\s(])~([^~\n]+?)~(?=$|[\s.,;:!?)])/g, '$1<s>$2</s>');
  return emoji(html);
}

/** `<@U1>`, `<#C1|name>`, `<!here>`, `<https://…|label>`, `<mailto:…>`. */
function special(body: string, names: NameLookup): string {
  const [target, label] = splitOnce(body, '|');
  if (target.startsWith('@')) {
    const id = target.slice(1);
    return `<span class="mention">@${escapeHtml(names.user(id) ?? label ?? id)}</span>`;
  }
  if (target.startsWith('#')) {
    const id = target.slice(1);
    return `<span class="mention">#${escapeHtml(names.channel(id) ?? label ?? id)}</span>`;
  }
  if (target.startsWith('!')) return `<span class="mention">@${escapeHtml(label ?? target.slice(1).split('^')[0])}</span>`;
  const href = decodeSlack(target);
  if (!/^(https?:|mailto:)/i.test(href)) return escapeHtml(decodeSlack(`<${body}>`));
  return `<a href="${escapeHtml(href)}" target="_blank" rel="noreferrer">${escapeHtml(decodeSlack(label ?? target))}</a>`;
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}
