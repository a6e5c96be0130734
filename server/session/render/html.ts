/**
 * HTML helpers for the session pages. Everything a run shows is hostile text (a model's words,
 * a command's output, a file's content): it is escaped here, always, and never trusted as markup.
 */

/** Text as HTML text or a quoted attribute value. NUL (the link markers' delimiter) never survives. */
export function esc(text: string | number | undefined): string {
  return (
    String(text ?? '')
      // eslint-disable-next-line no-control-regex -- NUL delimits the link markers: no text may carry one
      .replace(/\u0000/g, '\uFFFD')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&#39;')
  );
}

/**
 * A link to another workflow's page (or a path under one), left as a marker for `personalise`,
 * which signs it for whoever reads the page: the same HTML serves every viewer of a workflow.
 * Only the renderers make markers, from ids Temporal gave; `esc` strips NUL from any text.
 */
export function pageLink(workflowId: string, suffix = ''): string {
  return `\u0000${encodeURIComponent(workflowId)}\u0001${suffix}\u0000`;
}

// eslint-disable-next-line no-control-regex -- the markers are made of NUL and SOH
const MARKER = /\u0000([^\u0000\u0001]*)\u0001([^\u0000]*)\u0000/g;

/** Replaces each link marker by the link this viewer may follow (`sign` adds a token or not). */
export function personalise(html: string, sign: (workflowId: string, suffix: string) => string): string {
  return html.replace(MARKER, (_match, id: string, suffix: string) => esc(sign(decodeURIComponent(id), suffix)));
}

/** At most `max` characters: the head and the tail, with what was left out named in between. */
export function clip(text: string, max: number, tailShare = 0.25): { text: string; cut: number } {
  if (text.length <= max) return { text, cut: 0 };
  const tail = Math.floor(max * tailShare);
  const head = max - tail;
  return {
    text: `${text.slice(0, head)}\n… ${text.length - max} characters not shown …\n${tail ? text.slice(-tail) : ''}`,
    cut: text.length - max,
  };
}

export function clock(ms: number | undefined): string {
  if (!ms) return '';
  return new Date(ms).toISOString().slice(11, 19);
}

/** A time of day (UTC, as the header's facts); no datetime attribute: a long run has thousands of them. */
export function timeTag(ms: number | undefined): string {
  if (!ms) return '';
  return `<time>${clock(ms)}</time>`;
}

export function duration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '';
  if (ms < 1_000) return `${Math.max(0, Math.round(ms))} ms`;
  const seconds = ms / 1_000;
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 1 : 0)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${Math.round(seconds % 60)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

export function count(n: number): string {
  if (n < 1_000) return String(n);
  if (n < 1_000_000) return `${(n / 1_000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function usd(value: number): string {
  return value < 0.01 && value > 0 ? `$${value.toFixed(4)}` : `$${value.toFixed(2)}`;
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** A status word as a badge; `tone` picks its colour (and the word says it, for those who cannot see colour). */
export function badge(word: string, tone: 'live' | 'good' | 'bad' | 'warn' | 'plain'): string {
  return `<span class="badge ${tone}">${esc(word)}</span>`;
}
