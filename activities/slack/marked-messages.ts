import { Context } from '@temporalio/activity';
import { classifySlackError, retryLater, type SlackWebClient } from './slack-client';

/** The message metadata that marks our writes with their effect key. */
export interface EffectMarker {
  event_type: string;
  event_payload: Record<string, string | number>;
}

export interface MarkedPost {
  channel: string;
  /** The thread it goes in; absent: a top-level message of the channel (a plan unit's own thread starts with one). */
  threadTs?: string;
  /** For a top-level post: only messages after this ts are looked through for an earlier attempt's. */
  after?: string;
  marker: EffectMarker;
  /** The marker's identity inside the thread (effect key, plus the part for a split answer). */
  key: string;
  text: string;
  blocks?: unknown[];
}

export type PostOutcome =
  { status: 'posted' | 'found'; ts: string } | { status: 'unconfirmed'; reason: string } | { status: 'refused'; reason: string };

/** Pages of a thread read when looking for a marker (200 messages each). */
const MAX_PAGES = 10;

/**
 * At-most-once posting into a thread. The message carries its effect key in metadata; a
 * call that cannot know whether an earlier attempt landed looks for the key first. An
 * unknown result is checked at once; if the key is not there it is `unconfirmed` and never
 * posted again (remembered for later attempts in this worker and in heartbeat details).
 */
export class MarkedPoster {
  private readonly known = new Map<string, string>();
  private readonly uncertain = new Set<string>();

  constructor(private readonly client: () => SlackWebClient) {}

  /** The ts of our message with this key in the thread, if one is there. */
  async find(channel: string, threadTs: string, matches: (marker: EffectMarker) => boolean): Promise<string | undefined> {
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      let result;
      try {
        result = await this.client().conversations.replies({
          channel,
          ts: threadTs,
          include_all_metadata: true,
          limit: 200,
          ...(cursor ? { cursor } : {}),
        });
      } catch (error) {
        const failure = classifySlackError(error);
        if (failure.kind === 'refused' && failure.reason === 'thread_not_found') return undefined;
        throw retryLater(failure, 'reading the thread');
      }
      const hit = result.messages?.find((message) => {
        const metadata = (message as { metadata?: EffectMarker }).metadata;
        return metadata !== undefined && matches(metadata);
      });
      if (hit?.ts) return hit.ts;
      cursor = result.response_metadata?.next_cursor || undefined;
      if (!cursor) return undefined;
    }
    return undefined;
  }

  /** The ts of our top-level message with this marker in the channel, looked for among those after `after`. */
  async findInChannel(channel: string, matches: (marker: EffectMarker) => boolean, after?: string): Promise<string | undefined> {
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      let result;
      try {
        result = await this.client().conversations.history({
          channel,
          include_all_metadata: true,
          limit: 200,
          ...(after ? { oldest: after } : {}),
          ...(cursor ? { cursor } : {}),
        });
      } catch (error) {
        throw retryLater(classifySlackError(error), 'reading the channel');
      }
      const hit = result.messages?.find((message) => {
        const metadata = (message as { metadata?: EffectMarker }).metadata;
        return metadata !== undefined && matches(metadata);
      });
      if (hit?.ts) return hit.ts;
      cursor = result.response_metadata?.next_cursor || undefined;
      if (!cursor) return undefined;
    }
    return undefined;
  }

  /** Posts once: the ts of the message (found or new), or why it was not posted. */
  async post(post: MarkedPost): Promise<PostOutcome> {
    const cached = this.known.get(post.key);
    if (cached) return { status: 'found', ts: cached };
    const isOurs = (marker: EffectMarker) => marker.event_type === post.marker.event_type && markerKey(marker) === post.key;
    const look = () =>
      post.threadTs === undefined ? this.findInChannel(post.channel, isOurs, post.after) : this.find(post.channel, post.threadTs, isOurs);
    const found = await look();
    if (found) return this.remember(post.key, found, 'found');
    if (this.uncertain.has(post.key) || previousAttemptUncertain(post.key)) {
      return { status: 'unconfirmed', reason: 'an earlier attempt may have posted it, and it is not in the thread' };
    }
    try {
      const result = await this.client().chat.postMessage({
        channel: post.channel,
        ...(post.threadTs !== undefined ? { thread_ts: post.threadTs } : {}),
        text: post.text,
        metadata: post.marker,
        ...(post.blocks ? { blocks: post.blocks as never } : {}),
      });
      return this.remember(post.key, result.ts!, 'posted');
    } catch (error) {
      const failure = classifySlackError(error);
      if (failure.kind === 'refused') return { status: 'refused', reason: failure.reason };
      if (failure.kind !== 'unknown') throw retryLater(failure, 'posting to Slack');
      this.markUncertain(post.key);
      const landed = await look();
      if (landed) return this.remember(post.key, landed, 'found');
      return {
        status: 'unconfirmed',
        reason: `the post's result is unknown (${failure.reason}) and it is not in the ${post.threadTs === undefined ? 'channel' : 'thread'}`,
      };
    }
  }

  /** Forgets a message that is gone (deleted by someone), so the next lookup reads the thread. */
  forget(key: string): void {
    this.known.delete(key);
  }

  private remember(key: string, ts: string, status: 'posted' | 'found'): PostOutcome {
    this.known.set(key, ts);
    if (this.known.size > 5_000) this.known.delete(this.known.keys().next().value!);
    return { status, ts };
  }

  private markUncertain(key: string): void {
    this.uncertain.add(key);
    try {
      const context = Context.current();
      const earlier = uncertainKeys(context.info.heartbeatDetails);
      context.heartbeat({ uncertainPosts: [...new Set([...earlier, key])] });
    } catch {
      // Outside an activity (unit tests): this worker's memory is all there is.
    }
  }
}

/** The key a marker stands for: the effect key, and the part of a split answer. */
export function markerKey(marker: EffectMarker): string {
  const payload = marker.event_payload;
  return payload.part === undefined ? String(payload.effect_key) : `${String(payload.effect_key)}#${String(payload.part)}`;
}

function previousAttemptUncertain(key: string): boolean {
  try {
    return uncertainKeys(Context.current().info.heartbeatDetails).includes(key);
  } catch {
    return false;
  }
}

function uncertainKeys(details: unknown): string[] {
  const list = (details as { uncertainPosts?: unknown })?.uncertainPosts;
  return Array.isArray(list) ? list.filter((entry): entry is string => typeof entry === 'string') : [];
}
