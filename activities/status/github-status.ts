import { type Octokit } from '@octokit/rest';
import { hasMarker, isRetry, refusalOrThrow, withMarker } from '../github/effects';
import { type GitHubIdentities } from '../github/identity';
import { splitRepo } from '../github/repo-name';
import { type Logger } from '../../infra/logger';
import { renderGitHubCard, splitForGitHub } from './github-card';
import type { EffectResult, PlanCardInput, ReplyInput, StatusCardInput } from '../../workflows/contracts/status';

export interface GitHubStatusDeps {
  identities: GitHubIdentities;
  logger: Logger;
  /** Temporal Web UI base URL for the card's link to the run (no link when unset). */
  webUiBaseUrl?: string;
  namespace: string;
  /** The run's signed session page link (infra/session-links.ts); no link when unset. */
  sessionLink?: (runId: string) => string | undefined;
}

type GitHubTarget = { kind: 'github'; repo: string; pullRequest: number; commentId?: number; reviewComment?: boolean };

/**
 * `statusCard` and `deliverReply` for PR and issue conversations, written with the write
 * identity. The card is one comment per run, found by its hidden effect marker and edited in
 * place; the answer is one comment per effect key (split past GitHub's limit, each part keyed).
 * A write whose earlier attempt lost its answer is looked for first; when no trace is found it
 * is `unconfirmed` and never posted again, in this worker (remembered) or another (a retry
 * attempt never posts). A reply that carries `acknowledge` also reacts on the triggering comment.
 */
export function createGitHubStatusActivities(deps: GitHubStatusDeps) {
  const cards = new Map<string, number>();
  const uncertain = new Set<string>();
  const webUiUrl = (runId: string) =>
    deps.webUiBaseUrl
      ? `${deps.webUiBaseUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(deps.namespace)}/workflows/${encodeURIComponent(runId)}`
      : undefined;

  /** The write identity's client, or why there is none (the content is then only logged). */
  async function writer(): Promise<Octokit | EffectResult> {
    if (!(await deps.identities.tokenFor('write'))) {
      return {
        status: 'logged',
        reason: 'no GitHub write identity is configured (GITHUB_WRITE_TOKEN or github.app): written to the worker log only',
      };
    }
    return deps.identities.octokitFor('write');
  }

  /** Our comment with this key on the conversation, if there is one. */
  async function find(gh: Octokit, target: GitHubTarget, key: string): Promise<number | undefined> {
    const comments = await gh.paginate(gh.rest.issues.listComments, {
      ...splitRepo(target.repo),
      issue_number: target.pullRequest,
      per_page: 100,
    });
    return comments.find((comment) => hasMarker(comment.body, key))?.id;
  }

  /** Posts `body` once under `key`: `found` when an earlier attempt's comment is there. */
  async function postOnce(gh: Octokit, target: GitHubTarget, key: string, body: string): Promise<PostOutcome> {
    if (uncertain.has(key)) return { status: 'unconfirmed', reason: UNCONFIRMED };
    const existing = await find(gh, target, key);
    if (existing !== undefined) return { status: 'found', id: existing };
    if (isRetry(undefined)) {
      uncertain.add(key);
      return { status: 'unconfirmed', reason: UNCONFIRMED };
    }
    const { data } = await gh.rest.issues.createComment({
      ...splitRepo(target.repo),
      issue_number: target.pullRequest,
      body: withMarker(body, key),
    });
    return { status: 'posted', id: data.id };
  }

  async function react(gh: Octokit, target: GitHubTarget, content: '+1' | '-1' | 'eyes' | 'rocket'): Promise<void> {
    if (!target.commentId) return;
    // GitHub answers an existing reaction of ours with 200 and the same reaction: repeatable.
    const where = { ...splitRepo(target.repo), comment_id: target.commentId, content };
    try {
      if (target.reviewComment) await gh.rest.reactions.createForPullRequestReviewComment(where);
      else await gh.rest.reactions.createForIssueComment(where);
    } catch (error) {
      // A reaction is a courtesy: a refused one is logged, never a failed delivery.
      const result = refusalOrThrow(error, `reaction/${target.commentId}`, `react to comment ${target.commentId}`, 'write');
      deps.logger.warn({ repo: target.repo, commentId: target.commentId, reason: result.reason }, 'reaction refused');
    }
  }

  return {
    async statusCard(input: StatusCardInput): Promise<EffectResult> {
      const target = githubTarget(input.replyTarget);
      const link = input.webUiUrl ?? webUiUrl(input.runId);
      const session = deps.sessionLink?.(input.runId);
      const body = renderGitHubCard({
        status: input.status,
        final: input.final,
        ...(link ? { webUiUrl: link } : {}),
        ...(session ? { sessionUrl: session } : {}),
      });
      const gh = await writer();
      if ('status' in gh) return gh;
      const key = input.effectKey;
      try {
        if (input.earlierKeys?.length) {
          // Earlier posts of this card were never confirmed: any that turned up is edited, and the
          // card is posted afresh only when none is there.
          const found: Array<{ key: string; id: number }> = [];
          for (const each of [...input.earlierKeys, key]) {
            const id = cards.get(each) ?? (await find(gh, target, each));
            if (id !== undefined) found.push({ key: each, id });
          }
          for (const { key: each, id } of found) {
            cards.set(each, id);
            await gh.rest.issues.updateComment({ ...splitRepo(target.repo), comment_id: id, body: withMarker(body, each) });
          }
          if (found.length > 0) return { status: 'confirmed' };
        }
        const known = cards.get(key);
        if (known === undefined) {
          const posted = await postOnce(gh, target, key, body);
          if (posted.status === 'unconfirmed') return { status: 'unconfirmed', reason: posted.reason };
          cards.set(key, posted.id);
          // The first card says the request was taken: a reaction on the comment that asked.
          await react(gh, target, 'eyes');
          if (posted.status === 'posted') return { status: 'confirmed' };
        }
        await gh.rest.issues.updateComment({ ...splitRepo(target.repo), comment_id: cards.get(key)!, body: withMarker(body, key) });
        return { status: 'confirmed' };
      } catch (error) {
        const result = refusalOrThrow(error, key, `update the status comment on #${target.pullRequest}`, 'write');
        // A deleted card is looked for again by the next update, never edited by a dead id.
        cards.delete(key);
        deps.logger.warn({ runId: input.runId, reason: result.reason }, 'status comment refused');
        return { status: 'refused', ...(result.reason ? { reason: result.reason } : {}) };
      }
    },

    /** The plan's card: one comment on the plan's conversation, found by its marker and edited in place. */
    async planCard(input: PlanCardInput): Promise<EffectResult> {
      const target = githubTarget(input.replyTarget);
      const gh = await writer();
      if ('status' in gh) return gh;
      const key = input.effectKey;
      try {
        if (!cards.has(key)) {
          const posted = await postOnce(gh, target, key, input.text);
          if (posted.status === 'unconfirmed') return { status: 'unconfirmed', reason: posted.reason };
          cards.set(key, posted.id);
          if (posted.status === 'posted') return { status: 'confirmed' };
        }
        await gh.rest.issues.updateComment({ ...splitRepo(target.repo), comment_id: cards.get(key)!, body: withMarker(input.text, key) });
        return { status: 'confirmed' };
      } catch (error) {
        const result = refusalOrThrow(error, key, `update the plan's card on #${target.pullRequest}`, 'write');
        cards.delete(key);
        return { status: 'refused', ...(result.reason ? { reason: result.reason } : {}) };
      }
    },

    async deliverReply(input: ReplyInput): Promise<EffectResult> {
      const target = githubTarget(input.replyTarget);
      const gh = await writer();
      if ('status' in gh) {
        deps.logger.info({ effectKey: input.effectKey, target: 'github' }, input.text);
        return gh;
      }
      if (input.acknowledge) await react(gh, target, input.acknowledge === 'refused' ? '-1' : '+1');
      const parts = splitForGitHub(input.text.trim() || '(no answer)');
      for (const [index, part] of parts.entries()) {
        const key = parts.length === 1 ? input.effectKey : `${input.effectKey}#${index + 1}`;
        try {
          const posted = await postOnce(gh, target, key, part);
          if (posted.status === 'unconfirmed') {
            deps.logger.warn({ effectKey: key, reason: posted.reason }, 'reply unconfirmed');
            return { status: 'unconfirmed', reason: `part ${index + 1} of ${parts.length}: ${posted.reason}` };
          }
        } catch (error) {
          const result = refusalOrThrow(error, key, `comment on #${target.pullRequest}`, 'write');
          return { status: 'refused', reason: `part ${index + 1} of ${parts.length}: ${result.reason}` };
        }
      }
      return { status: 'confirmed' };
    },
  };
}

type PostOutcome = { status: 'posted' | 'found'; id: number } | { status: 'unconfirmed'; reason: string };

const UNCONFIRMED = 'an earlier attempt lost its result and no trace of it was found; not posted again';

function githubTarget(target: StatusCardInput['replyTarget']): GitHubTarget {
  if (target.kind !== 'github') throw new Error(`the GitHub status activities got a ${target.kind} target`);
  return target;
}
