import { createHash } from 'node:crypto';

/**
 * Prompt-cache accounting from the request bodies a provider received, so the cost bench
 * measures what Switchboard sends rather than what an emulator bills. Tokens are estimated at
 * four characters each (the same estimate the run uses for its window).
 *
 * Anthropic (Messages API), as documented for prompt caching:
 * - the prompt is one prefix in the order tools → system → messages; each tool definition,
 *   system block and message content block is one block;
 * - a block carrying `cache_control` is a breakpoint (at most 4); after the request, the prefix up
 *   to and including each breakpoint is a cache entry with that breakpoint's TTL (5 minutes unless
 *   `ttl: '1h'`), unless it is shorter than the model's minimum (1,024 tokens);
 * - a request reads the longest entry still alive that ends at one of its breakpoints or at one of
 *   the ~20 block boundaries before a breakpoint (the lookback); a read refreshes that entry;
 * - tokens from the read up to the last breakpoint are written (each stretch at the TTL of the
 *   breakpoint that ends it); tokens after the last breakpoint are plain input;
 * - priced against plain input: reads 0.1×, 5-minute writes 1.25×, 1-hour writes 2×.
 *
 * OpenAI (Chat Completions, automatic prefix caching): no breakpoints and no write surcharge; a
 * request reads the longest prefix it shares with an earlier request (tools, then the messages in
 * order), in steps of 128 tokens from 1,024 tokens on; the rest is plain input. Reads are priced
 * by the model (`openaiRead`, 0.5× by default here).
 */

export interface CacheRules {
  /** Block boundaries checked before each breakpoint (Anthropic: about 20). */
  lookbackBlocks: number;
  /** The shortest prefix that is cached (tokens). */
  minTokens: number;
  read: number;
  write5m: number;
  write1h: number;
  /** OpenAI's cached-input multiplier. */
  openaiRead: number;
}

export const ANTHROPIC_RULES: CacheRules = { lookbackBlocks: 20, minTokens: 1_024, read: 0.1, write5m: 1.25, write1h: 2, openaiRead: 0.5 };

/** One request's tokens by how they were served. */
export interface RequestAccount {
  input: number;
  read: number;
  write5m: number;
  write1h: number;
  /** Plain input: neither read nor written. */
  uncached: number;
}

/** A whole run's totals, and the two ratios the bench reports. */
export interface RunAccount extends RequestAccount {
  requests: number;
  /** Input tokens served from the cache, over all input tokens. */
  cacheShare: number;
  /** Cost of the input with caching, over the same input with no caching (all at the input price). */
  costVsNoCache: number;
}

export const tokensOf = (chars: number): number => Math.ceil(chars / 4);

interface Block {
  tokens: number;
  /** Hash of the prefix up to and including this block. */
  prefix: string;
  ttl?: '5m' | '1h';
}

type Json = Record<string, unknown>;

/** A block's content without its cache marker: a marker is not part of the prompt. */
function withoutMarker(block: unknown): unknown {
  if (!block || typeof block !== 'object') return block;
  const { cache_control: _marker, ...rest } = block as Json;
  return rest;
}

function markerTtl(block: unknown): '5m' | '1h' | undefined {
  const marker = (block as Json | undefined)?.cache_control as { ttl?: string } | undefined;
  if (!marker) return undefined;
  return marker.ttl === '1h' ? '1h' : '5m';
}

/** The Messages API body as its blocks in prompt order, each with the hash of the prefix it ends. */
export function anthropicBlocks(body: Json): Block[] {
  const raw: { key: string; tokens: number; ttl?: '5m' | '1h' }[] = [];
  for (const tool of (body.tools as unknown[] | undefined) ?? []) {
    const text = JSON.stringify(withoutMarker(tool));
    raw.push({ key: `tool:${text}`, tokens: tokensOf(text.length), ttl: markerTtl(tool) });
  }
  const system = body.system;
  const systemBlocks = typeof system === 'string' ? [{ type: 'text', text: system }] : ((system as unknown[] | undefined) ?? []);
  for (const block of systemBlocks) {
    const text = (block as { text?: string }).text ?? '';
    raw.push({ key: `system:${text}`, tokens: tokensOf(text.length), ttl: markerTtl(block) });
  }
  for (const message of (body.messages as { role: string; content: unknown }[] | undefined) ?? []) {
    const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : (message.content as unknown[]);
    blocks.forEach((block, index) => {
      const text = JSON.stringify(withoutMarker(block));
      // A message's first block also starts the message: the same block under another role is another prompt.
      raw.push({ key: `${index === 0 ? `<${message.role}>` : ''}${text}`, tokens: tokensOf(blockChars(block)), ttl: markerTtl(block) });
    });
  }
  let hash = '';
  return raw.map((block) => {
    hash = createHash('sha256').update(hash).update(block.key).digest('hex');
    return { tokens: block.tokens, prefix: hash, ...(block.ttl ? { ttl: block.ttl } : {}) };
  });
}

/** What a block weighs in characters: its text, a result's content, a call's name and input. */
function blockChars(block: unknown): number {
  const b = block as { type?: string; text?: string; content?: unknown; name?: string; input?: unknown };
  if (b.type === 'text') return (b.text ?? '').length;
  if (b.type === 'tool_result') {
    const content = b.content;
    return typeof content === 'string' ? content.length : JSON.stringify(content ?? '').length;
  }
  if (b.type === 'tool_use') return (b.name ?? '').length + JSON.stringify(b.input ?? {}).length;
  return JSON.stringify(withoutMarker(block)).length;
}

const TTL_MS = { '5m': 5 * 60_000, '1h': 60 * 60_000 } as const;

/** Anthropic's prompt cache, fed the request bodies in the order they were sent. */
export class AnthropicCache {
  private readonly entries = new Map<string, { expires: number; ttl: '5m' | '1h' }>();

  constructor(private readonly rules: CacheRules = ANTHROPIC_RULES) {}

  /** Accounts one request sent at `atMs` and updates the cache as the API would. */
  account(body: Json, atMs: number): RequestAccount {
    const blocks = anthropicBlocks(body);
    const ends: number[] = [];
    let sum = 0;
    for (const block of blocks) ends.push((sum += block.tokens));
    const input = sum;
    const breakpoints = blocks.flatMap((block, index) => (block.ttl ? [index] : []));
    const alive = (index: number) => {
      const entry = this.entries.get(blocks[index].prefix);
      return entry !== undefined && entry.expires > atMs;
    };
    // The longest live entry at a breakpoint or within the lookback before one.
    let hit = -1;
    for (const point of breakpoints) {
      for (let index = point; index >= Math.max(0, point - this.rules.lookbackBlocks); index -= 1) {
        if (index <= hit) break;
        if (alive(index)) {
          hit = index;
          break;
        }
      }
    }
    const read = hit >= 0 ? ends[hit] : 0;
    let write5m = 0;
    let write1h = 0;
    let covered = read;
    for (const point of breakpoints) {
      if (ends[point] <= covered || ends[point] < this.rules.minTokens) continue;
      const stretch = ends[point] - covered;
      if (blocks[point].ttl === '1h') write1h += stretch;
      else write5m += stretch;
      covered = ends[point];
    }
    if (hit >= 0) {
      const entry = this.entries.get(blocks[hit].prefix)!;
      entry.expires = atMs + TTL_MS[entry.ttl];
    }
    for (const point of breakpoints) {
      if (ends[point] < this.rules.minTokens) continue;
      const ttl = blocks[point].ttl!;
      const existing = this.entries.get(blocks[point].prefix);
      const expires = atMs + TTL_MS[ttl];
      if (!existing || existing.expires < expires) this.entries.set(blocks[point].prefix, { expires, ttl });
    }
    return { input, read, write5m, write1h, uncached: input - covered };
  }
}

/** The Chat Completions body as one string in prompt order (tools, then each message). */
export function openaiPromptText(body: Json): string {
  const parts: string[] = [];
  for (const tool of (body.tools as unknown[] | undefined) ?? []) parts.push(JSON.stringify(tool));
  for (const message of (body.messages as unknown[] | undefined) ?? []) parts.push(JSON.stringify(message));
  return parts.join('\n');
}

/** OpenAI's automatic prefix cache over the last few requests (a run's requests share one cache key). */
export class OpenAICache {
  private readonly recent: { text: string; at: number }[] = [];

  constructor(
    private readonly rules: CacheRules = ANTHROPIC_RULES,
    /** How long an unused prefix stays (OpenAI: 5 to 10 minutes of inactivity). */
    private readonly ttlMs = 5 * 60_000,
    private readonly keep = 4,
  ) {}

  account(body: Json, atMs: number): RequestAccount {
    const text = openaiPromptText(body);
    let shared = 0;
    for (const earlier of this.recent) if (earlier.at + this.ttlMs > atMs) shared = Math.max(shared, commonPrefix(text, earlier.text));
    const input = tokensOf(text.length);
    const sharedTokens = Math.floor(shared / 4);
    const read = sharedTokens >= this.rules.minTokens ? Math.floor(sharedTokens / 128) * 128 : 0;
    this.recent.unshift({ text, at: atMs });
    this.recent.splice(this.keep);
    return { input, read, write5m: 0, write1h: 0, uncached: input - read };
  }
}

function commonPrefix(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  let index = 0;
  while (index < length && a.charCodeAt(index) === b.charCodeAt(index)) index += 1;
  return index;
}

/** Totals over a run, with the share served from cache and the cost against no caching. */
export function totals(
  accounts: RequestAccount[],
  rules: CacheRules = ANTHROPIC_RULES,
  provider: 'anthropic' | 'openai' = 'anthropic',
): RunAccount {
  const sum = { input: 0, read: 0, write5m: 0, write1h: 0, uncached: 0 };
  for (const account of accounts) {
    sum.input += account.input;
    sum.read += account.read;
    sum.write5m += account.write5m;
    sum.write1h += account.write1h;
    sum.uncached += account.uncached;
  }
  const readPrice = provider === 'openai' ? rules.openaiRead : rules.read;
  const cost = sum.read * readPrice + sum.write5m * rules.write5m + sum.write1h * rules.write1h + sum.uncached;
  return {
    ...sum,
    requests: accounts.length,
    cacheShare: sum.input ? sum.read / sum.input : 0,
    costVsNoCache: sum.input ? cost / sum.input : 0,
  };
}
