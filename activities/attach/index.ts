import { basename, extname } from 'node:path';
import { createConversationWrites } from '../github/conversation-writes';
import { type GitHubIdentities } from '../github/identity';
import { type SlackWebClient } from '../slack/slack-client';
import { type SandboxHost } from '../sandbox/sandbox-host';
import { type WorkspaceRef } from '../../workflows/contracts/sandbox';
import { SandboxUnavailable, workspaceFilesFor } from '../sandbox';
import type { ReplyTarget } from '../../workflows/contracts';
import { uploadToSlackThread } from './slack-upload';

export interface AttachDeps {
  /** The workspaces' sandbox host: files are read inside the workspace's sandbox. */
  sandboxHost: SandboxHost;
  /** Slack's Web API client, when Slack is configured. */
  slack?: () => SlackWebClient;
  github: GitHubIdentities;
  /** Largest file posted to Slack. */
  maxBytes?: number;
}

export interface AttachInput {
  workspace: WorkspaceRef;
  path: string;
  title?: string;
  comment?: string;
  replyTarget: ReplyTarget;
  /** `<runId>/attach_file/<turn>.<index>`: the same on every retry, so the file is posted at most once. */
  effectKey: string;
  /** The run's GitHub identity, for a comment on a pull request. */
  identity: 'read' | 'write';
}

export interface AttachResult {
  status: 'confirmed' | 'unconfirmed' | 'refused';
  /** Where the file landed (Slack permalink, comment URL). */
  url?: string;
  reason?: string;
  /** Set when only the first part of a long file fit in a GitHub comment. */
  truncated?: boolean;
}

export const DEFAULT_ATTACH_MAX_BYTES = 20 * 1024 * 1024;
/** GitHub refuses comment bodies over 65,536 characters; the fence, header and marker need room. */
export const GITHUB_COMMENT_CONTENT_LIMIT = 60_000;

/**
 * `attachFile`: posts a workspace file to the run's conversation. Slack gets the file itself
 * (the external upload flow, at most once by its marker); a pull request gets a comment with
 * the file's text in a code block (the effect-keyed comment write), cut with a note when it
 * is longer than a comment can hold. Refusals come back as data.
 */
export function createAttachActivities(deps: AttachDeps) {
  const comments = createConversationWrites(deps.github);
  return {
    async attachFile(input: AttachInput): Promise<AttachResult> {
      const file = await readWorkspaceBytes(deps.sandboxHost, input.workspace, input.path, deps.maxBytes ?? DEFAULT_ATTACH_MAX_BYTES);
      if ('error' in file) return { status: 'refused', reason: file.error };
      const title = input.title?.trim() || basename(input.path);
      const target = input.replyTarget;
      if (target.kind === 'slack') {
        if (!deps.slack) return { status: 'refused', reason: 'Slack is not configured in this deployment' };
        const outcome = await uploadToSlackThread(deps.slack(), {
          channel: target.channel,
          threadTs: target.threadTs,
          filename: basename(input.path),
          title,
          content: file.bytes,
          text: input.comment?.trim() || `:paperclip: ${title}`,
          effectKey: input.effectKey,
        });
        return outcome.status === 'confirmed'
          ? { status: 'confirmed', ...(outcome.permalink ? { url: outcome.permalink } : {}) }
          : { status: outcome.status, reason: outcome.reason };
      }
      if (target.kind === 'github') {
        if (file.bytes.subarray(0, 8_000).includes(0)) {
          return { status: 'refused', reason: `${input.path} is binary; a pull request comment can carry text only` };
        }
        const { body, truncated } = commentBody(input.path, title, input.comment, file.bytes);
        const result = await comments.postComment({
          identity: input.identity,
          repo: target.repo,
          number: target.pullRequest,
          body,
          effectKey: input.effectKey,
        });
        return {
          status: result.status,
          ...(result.url ? { url: result.url } : {}),
          ...(result.reason ? { reason: result.reason } : {}),
          ...(truncated ? { truncated } : {}),
        };
      }
      return { status: 'refused', reason: `a ${target.kind} conversation has no thread to post a file to` };
    },
  };
}

export type AttachActivities = ReturnType<typeof createAttachActivities>;

/** The comment: a header, the person's line, and the text in a fence longer than any inside it. */
export function commentBody(path: string, title: string, comment: string | undefined, bytes: Buffer): { body: string; truncated: boolean } {
  const text = bytes.toString('utf8');
  const truncated = text.length > GITHUB_COMMENT_CONTENT_LIMIT;
  const shown = truncated ? text.slice(0, GITHUB_COMMENT_CONTENT_LIMIT) : text;
  const longestRun = Math.max(2, ...[...shown.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longestRun + 1);
  const language = extname(path)
    .slice(1)
    .replace(/[^A-Za-z0-9+-]/g, '');
  const header = `:paperclip: **${title}** (\`${path}\`, ${bytes.length} bytes)`;
  const note = truncated
    ? `\n\n_Only the first ${GITHUB_COMMENT_CONTENT_LIMIT} characters fit in a comment; the whole file is ${bytes.length} bytes._`
    : '';
  return {
    body: [header, comment?.trim(), `${fence}${language}\n${shown.replace(/\n$/, '')}\n${fence}`].filter(Boolean).join('\n\n') + note,
    truncated,
  };
}

/** A workspace file's bytes, read inside its sandbox through a path that stays inside the workspace. */
async function readWorkspaceBytes(
  host: SandboxHost,
  workspace: WorkspaceRef,
  path: string,
  maxBytes: number,
): Promise<{ bytes: Buffer } | { error: string }> {
  const files = await workspaceFilesFor(host, workspace);
  if (files instanceof SandboxUnavailable) return { error: files.message };
  const read = await files.readBytes(path, maxBytes);
  if (!read.ok) return { error: read.code === 'too_large' ? `${path} is over the ${maxBytes}-byte attachment limit` : read.error };
  if (read.bytes.length === 0) return { error: `${path} is empty` };
  return { bytes: read.bytes };
}
