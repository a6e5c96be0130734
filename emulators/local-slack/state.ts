/** One message as the local Slack keeps it (the fields the Web API returns). */
export interface LocalMessage {
  type: 'message';
  ts: string;
  channel: string;
  text: string;
  /** A person's id, or the bot's user id for the app's own posts. */
  user: string;
  bot_id?: string;
  thread_ts?: string;
  blocks?: unknown[];
  metadata?: { event_type: string; event_payload: Record<string, unknown> };
  edited?: { user: string; ts: string };
  reactions?: Array<{ name: string; users: string[]; count: number }>;
  /** Files shared with this message (files.completeUploadExternal). */
  files?: LocalFileInfo[];
  upload?: boolean;
  /** How many times chat.update changed it. */
  updates: number;
}

/** A file as the Web API describes it in a message. */
export interface LocalFileInfo {
  id: string;
  name: string;
  title: string;
  size: number;
  mimetype: string;
  url_private: string;
  permalink: string;
}

/** An upload in progress or done: announced by files.getUploadURLExternal, filled by the POST to its URL. */
export interface LocalFile {
  id: string;
  filename: string;
  /** The length announced; the upload must match it. */
  length: number;
  content?: Buffer;
  /** Set once files.completeUploadExternal shared it. */
  completed?: { channel?: string; threadTs?: string; title: string };
}

export interface LocalUser {
  id: string;
  name: string;
  real_name?: string;
  is_bot?: boolean;
}

/**
 * The local Slack's in-memory workspace: channels of messages (threads by `thread_ts`),
 * users, and message timestamps that increase strictly, as Slack's do.
 */
export class LocalSlackState {
  private readonly channels = new Map<string, LocalMessage[]>();
  readonly users = new Map<string, LocalUser>();
  readonly files = new Map<string, LocalFile>();
  /** Messages only one person saw (`chat.postEphemeral`), oldest first: nobody else's page shows them. */
  readonly ephemerals: Array<{ channel: string; user: string; text: string; threadTs?: string }> = [];
  /** Display names of channels (`C0DEMO` -> `dev`), for the web page; unnamed ones show their id. */
  readonly channelNames = new Map<string, string>();
  private clock = 0;
  private fileCounter = 0;
  private version = 0;
  private readonly listeners = new Set<(version: number) => void>();

  /** Grows on every change, so a watcher can tell whether it has seen the latest state. */
  get revision(): number {
    return this.version;
  }

  /** Calls `listener` after each change; returns the way to stop listening. */
  onChange(listener: (version: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Marks a change made in place (an edit, a reaction). */
  touch(): void {
    this.version += 1;
    for (const listener of this.listeners) listener(this.version);
  }

  /** Channels with messages or a name, named ones first. */
  channelIds(): string[] {
    return [...new Set([...this.channelNames.keys(), ...this.channels.keys()])];
  }

  /** A new file id, in Slack's shape (F + letters and digits). */
  nextFileId(): string {
    this.fileCounter += 1;
    return `F0LOCAL${String(this.fileCounter).padStart(5, '0')}`;
  }

  /** A new message ts: seconds since the epoch, and a counter that keeps ts unique and ordered. */
  nextTs(): string {
    const seconds = Math.floor(Date.now() / 1000);
    this.clock += 1;
    return `${seconds}.${String(this.clock).padStart(6, '0')}`;
  }

  add(message: Omit<LocalMessage, 'ts' | 'type' | 'updates'> & { ts?: string }): LocalMessage {
    const stored: LocalMessage = { type: 'message', updates: 0, ...message, ts: message.ts ?? this.nextTs() };
    const list = this.channels.get(message.channel) ?? [];
    list.push(stored);
    this.channels.set(message.channel, list);
    this.touch();
    return stored;
  }

  find(channel: string, ts: string): LocalMessage | undefined {
    return this.channels.get(channel)?.find((message) => message.ts === ts);
  }

  /** Every message of a channel, oldest first. */
  messages(channel: string): LocalMessage[] {
    return [...(this.channels.get(channel) ?? [])];
  }

  /** A thread: its root and its replies, oldest first (a reply's ts gives just that reply). */
  thread(channel: string, ts: string): LocalMessage[] {
    const root = this.find(channel, ts);
    if (!root) return [];
    if (root.thread_ts && root.thread_ts !== root.ts) return [root];
    return this.messages(channel).filter((message) => message.ts === ts || message.thread_ts === ts);
  }
}
