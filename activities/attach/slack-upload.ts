import { createHash } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { classifySlackError, retryLater, type SlackWebClient } from '../slack/slack-client';

export interface SlackUpload {
  channel: string;
  threadTs: string;
  filename: string;
  title: string;
  content: Buffer;
  /** The line shown with the file. */
  text: string;
  effectKey: string;
}

export type UploadOutcome = { status: 'confirmed'; permalink?: string } | { status: 'unconfirmed' | 'refused'; reason: string };

/** Pages of a thread read when looking for an earlier attempt's file (200 messages each). */
const MAX_PAGES = 10;

/**
 * The hidden marker a file share carries: the `block_id` of its text block. The upload API
 * takes no message metadata, but it keeps the blocks it is given, and a block id is invisible.
 */
export function attachBlockId(effectKey: string): string {
  return `switchboard-attach-${createHash('sha256').update(effectKey).digest('hex').slice(0, 40)}`;
}

/**
 * Posts a file into a Slack thread at most once, through the external upload flow
 * (`files.getUploadURLExternal`, a POST of the bytes to the returned URL,
 * `files.completeUploadExternal`). Only the last step is visible, so only its unknown
 * result makes the upload uncertain: then the thread is searched for the marker, and a file
 * not found is `unconfirmed` and never uploaded again (remembered in heartbeat details, so a
 * retry on another worker knows too).
 */
export async function uploadToSlackThread(client: SlackWebClient, upload: SlackUpload): Promise<UploadOutcome> {
  const blockId = attachBlockId(upload.effectKey);
  const found = await findShared(client, upload.channel, upload.threadTs, blockId);
  if (found) return { status: 'confirmed', ...(found.permalink ? { permalink: found.permalink } : {}) };
  if (previousAttemptUncertain(upload.effectKey)) {
    return { status: 'unconfirmed', reason: 'an earlier attempt may have posted the file, and it is not in the thread' };
  }
  let fileId: string;
  try {
    const announced = await client.files.getUploadURLExternal({ filename: upload.filename, length: upload.content.length });
    fileId = announced.file_id!;
    const response = await fetch(announced.upload_url!, {
      method: 'POST',
      headers: { authorization: `Bearer ${client.token ?? ''}`, 'content-type': 'application/octet-stream' },
      body: upload.content,
      signal: AbortSignal.timeout(60_000),
    });
    if (response.status !== 200) {
      // Nothing is visible before completion, so a failed upload is simply tried again.
      throw new Error(`the upload URL answered HTTP ${response.status}`);
    }
  } catch (error) {
    const failure = classifySlackError(error);
    if (failure.kind === 'refused') return { status: 'refused', reason: failure.reason };
    throw retryLater(failure, 'uploading the file to Slack');
  }
  try {
    const completed = await client.files.completeUploadExternal({
      files: [{ id: fileId, title: upload.title }],
      channel_id: upload.channel,
      thread_ts: upload.threadTs,
      blocks: [{ type: 'section', block_id: blockId, text: { type: 'mrkdwn', text: upload.text } }],
    });
    const permalink = completed.files?.[0]?.permalink;
    return { status: 'confirmed', ...(permalink ? { permalink } : {}) };
  } catch (error) {
    const failure = classifySlackError(error);
    if (failure.kind === 'refused') return { status: 'refused', reason: failure.reason };
    if (failure.kind !== 'unknown') throw retryLater(failure, 'sharing the file in Slack');
    markUncertain(upload.effectKey);
    const landed = await findShared(client, upload.channel, upload.threadTs, blockId);
    if (landed) return { status: 'confirmed', ...(landed.permalink ? { permalink: landed.permalink } : {}) };
    return { status: 'unconfirmed', reason: `sharing the file had an unknown result (${failure.reason}) and it is not in the thread` };
  }
}

/** Our earlier share of this file in the thread, found by its block id. */
async function findShared(
  client: SlackWebClient,
  channel: string,
  threadTs: string,
  blockId: string,
): Promise<{ permalink?: string } | undefined> {
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    let result;
    try {
      result = await client.conversations.replies({ channel, ts: threadTs, limit: 200, ...(cursor ? { cursor } : {}) });
    } catch (error) {
      throw retryLater(classifySlackError(error), 'reading the thread');
    }
    for (const message of result.messages ?? []) {
      const blocks = (message as { blocks?: Array<{ block_id?: string }> }).blocks ?? [];
      if (blocks.some((block) => block.block_id === blockId)) {
        const files = (message as { files?: Array<{ permalink?: string }> }).files ?? [];
        return { ...(files[0]?.permalink ? { permalink: files[0].permalink } : {}) };
      }
    }
    cursor = result.response_metadata?.next_cursor || undefined;
    if (!cursor) return undefined;
  }
  return undefined;
}

function markUncertain(key: string): void {
  try {
    const context = Context.current();
    context.heartbeat({ uncertainAttachments: [...new Set([...uncertainKeys(context.info.heartbeatDetails), key])] });
  } catch {
    // Outside an activity (unit tests) there is no later attempt to tell.
  }
}

function previousAttemptUncertain(key: string): boolean {
  try {
    return uncertainKeys(Context.current().info.heartbeatDetails).includes(key);
  } catch {
    return false;
  }
}

function uncertainKeys(details: unknown): string[] {
  const list = (details as { uncertainAttachments?: unknown })?.uncertainAttachments;
  return Array.isArray(list) ? list.filter((entry): entry is string => typeof entry === 'string') : [];
}
