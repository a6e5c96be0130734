import { renderCard } from '../../activities/slack/card-blocks';
import type { RunStatus } from '../../workflows/contracts';
import { blocksToHtml } from './blocks-html';
import { startLocalSlack, type LocalSlack } from '.';
import { mrkdwnToHtml } from './mrkdwn-html';

const names = { user: (id: string) => ({ U1: 'ana' })[id], channel: (id: string) => ({ C1: 'dev' })[id] };

describe('mrkdwn to HTML', () => {
  it('draws what Slack draws: styles, code, quotes, links, mentions and emoji', () => {
    expect(mrkdwnToHtml('*bold* _it_ ~gone~ `x < y`', names)).toBe('<b>bold</b> <i>it</i> <s>gone</s> <code>x &lt; y</code>');
    expect(mrkdwnToHtml('<@U1> see <#C1> and <https://example.com/a?b=1&amp;c=2|the docs>', names)).toBe(
      '<span class="mention">@ana</span> see <span class="mention">#dev</span> and ' +
        '<a href="https://example.com/a?b=1&amp;c=2" target="_blank" rel="noreferrer">the docs</a>',
    );
    expect(mrkdwnToHtml('> quoted\n> twice\nafter', names)).toBe('<blockquote>quoted<br>twice</blockquote>after');
    expect(mrkdwnToHtml('Run:\n```\nnpm test *not bold*\n```', names)).toBe('Run:<br><pre class="code">npm test *not bold*\n</pre>');
    expect(mrkdwnToHtml(':white_check_mark: Completed :no_such_emoji:', names)).toBe('✅ Completed :no_such_emoji:');
  });

  it('escapes everything from the text, and links only web and mail addresses', () => {
    expect(mrkdwnToHtml('&lt;script&gt;alert(1)&lt;/script&gt; "quoted"', names)).toBe(
      '&lt;script&gt;alert(1)&lt;/script&gt; &quot;quoted&quot;',
    );
    expect(mrkdwnToHtml('<javascript:alert(1)|click>', names)).toBe('&lt;javascript:alert(1)|click&gt;');
    expect(mrkdwnToHtml('<https://x.test/"onmouseover="y|a>', names)).toContain('href="https://x.test/&quot;onmouseover=&quot;y"');
  });
});

describe('Block Kit to HTML', () => {
  const status: RunStatus = {
    runId: 'run:t:1',
    agent: 'coding',
    model: 'scripted:demo/session.yaml',
    phase: 'tools',
    turns: 2,
    turnGuard: 360,
    tokens: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
    cost: { usd: 0, searches: 0, searchUsd: 0, unpriced: [] },
    elapsedMs: 65_000,
    budget: { minutes: 60, boundedBy: 'agent', description: '60 min (preset)' },
    statusText: 'Fixing total()',
  };

  it('draws a status card as Switchboard renders it: agent, model, phase, status, facts, link and a Stop button that cannot be pressed', () => {
    const card = renderCard({
      status,
      final: false,
      webUiUrl: 'http://127.0.0.1:8233/namespaces/default/workflows/run%3At%3A1',
      sessionUrl: 'http://127.0.0.1:3000/session/run%3At%3A1?k=signed',
    });
    const html = blocksToHtml(card.blocks, names);
    expect(html).toContain('<b>coding</b> · <code>scripted:demo/session.yaml</code><br>🛠️ Running tools');
    expect(html).toContain('<blockquote>Fixing total()</blockquote>');
    expect(html).toContain('<b>Turns:</b> 2/360');
    // The session page beside the Temporal Web UI.
    expect(html).toContain(
      '<a href="http://127.0.0.1:3000/session/run%3At%3A1?k=signed" target="_blank" rel="noreferrer">Open session</a>  ·  ' +
        '<a href="http://127.0.0.1:8233/namespaces/default/workflows/run%3At%3A1" target="_blank" rel="noreferrer">Open in Temporal</a>',
    );
    expect(html).toContain('<button class="button danger" disabled title="read-only view">Stop</button>');

    const final = blocksToHtml(
      renderCard({ status: { ...status, outcome: 'completed' }, final: true, answer: 'Fixed *it*.' }).blocks,
      names,
    );
    expect(final).toContain('✅ Completed');
    expect(final).toContain('Fixed <b>it</b>.');
    expect(final).not.toContain('<button');
  });

  it('names a block it does not draw instead of dropping it', () => {
    expect(blocksToHtml([{ type: 'video' }, { type: 'divider' }], names)).toBe(
      '<div class="block unsupported">(a video block this page does not draw)</div><hr class="block divider">',
    );
  });
});

describe('the local Slack page', () => {
  let slack: LocalSlack;
  beforeAll(async () => {
    slack = await startLocalSlack({ botToken: 'xoxb-page', channels: { C0DEV: 'dev' }, users: [{ id: 'U0ANA', name: 'ana' }] });
  });
  afterAll(async () => {
    await slack.close();
  });

  const api = (method: string, body: object) =>
    fetch(`${slack.apiUrl}${method}`, {
      method: 'POST',
      headers: { authorization: 'Bearer xoxb-page', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then((response) => response.json() as Promise<{ ok: boolean; ts: string }>);

  it('shows channels, threads under their first message, people by name and the app’s blocks', async () => {
    const root = slack.state.add({ channel: 'C0DEV', user: 'U0ANA', text: '<@U0SWITCHBOARD> fix the test' });
    await api('chat.postMessage', {
      channel: 'C0DEV',
      thread_ts: root.ts,
      text: 'fallback',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*coding* is on it' } }],
    });
    const page = await (await fetch(`${slack.url}/`)).text();
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).toContain('<a class="channel-link" href="#c-C0DEV"># dev');
    expect(page).toContain('<span class="author">ana</span>');
    expect(page).toContain('<span class="mention">@switchboard</span> fix the test');
    expect(page).toContain('<div class="thread-head">1 reply</div>');
    expect(page).toContain('<b>coding</b> is on it');
    expect(page).not.toContain('fallback');
    expect(page).toContain("new EventSource('/_local/stream')");
  });

  it('streams one event per change, so the page refreshes when a card is edited', async () => {
    const posted = await api('chat.postMessage', { channel: 'C0DEV', text: 'working' });
    const controller = new AbortController();
    const response = await fetch(`${slack.url}/_local/stream`, { signal: controller.signal });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body!.getReader();
    const next = async () => {
      const { value } = await reader.read();
      return Number(/data: (\d+)/.exec(new TextDecoder().decode(value))?.[1]);
    };
    const before = await next();
    expect(before).toBe(slack.state.revision);
    await api('chat.update', { channel: 'C0DEV', ts: posted.ts, text: 'done' });
    expect(await next()).toBeGreaterThan(before);
    expect(await (await fetch(`${slack.url}/_local/view`)).text()).toContain('done<');
    controller.abort();
  });
});
