import { roleFromGitHub, type GitHubRole } from '../../agents/github-roles';
import { httpStatusOf } from './failures';
import { type GitHubIdentities } from './identity';
import { splitRepo } from './repo-name';
import { createConversationWrites } from './conversation-writes';

export interface ActorGateOptions {
  /** How long an answer is reused (`admission.github.cacheSeconds`). */
  cacheMs: number;
  /** Answers kept at most (the oldest go first). */
  maxEntries?: number;
  now?: () => number;
  logger?: { warn(details: object, message: string): void };
}

/** Where a refused trigger is answered: the comment that asked. */
export interface RefusalReactionTarget {
  repo: string;
  commentId: number;
  /** A pull request review comment (its reactions live elsewhere). */
  reviewComment?: boolean;
}

/**
 * What the GitHub door asks GitHub about a trigger's actor, and how it answers a refused one.
 * `roleOf` reads `GET /repos/{owner}/{repo}/collaborators/{username}/permission` with the read
 * identity (never the webhook's `author_association`, which is no proof for a private fork or
 * an outside collaborator) and reuses an answer for `cacheMs`; undefined when GitHub did not
 * answer (the door then refuses: fail closed). `refuse` puts one 👎 on the comment with the write
 * identity: repeatable (GitHub answers our existing reaction with itself), never a comment.
 */
export function createActorGate(identities: GitHubIdentities, options: ActorGateOptions) {
  const now = options.now ?? Date.now;
  const limit = options.maxEntries ?? 5_000;
  const cache = new Map<string, { role: GitHubRole; at: number }>();
  let conversationWrites: ReturnType<typeof createConversationWrites> | undefined;
  const writes = () => (conversationWrites ??= createConversationWrites(identities));
  /** A reaction on the comment that asked (👍 when it was done, 👎 when refused); repeatable. */
  const react = async (target: RefusalReactionTarget, content: '+1' | '-1'): Promise<void> => {
    const gh = await identities.octokitFor('write').catch(() => undefined);
    if (!gh) return;
    const where = { ...splitRepo(target.repo), comment_id: target.commentId, content };
    try {
      if (target.reviewComment) await gh.rest.reactions.createForPullRequestReviewComment(where);
      else await gh.rest.reactions.createForIssueComment(where);
    } catch (error) {
      // A reaction is a courtesy: the refusal stands (nothing was started) whether or not it shows.
      options.logger?.warn({ repo: target.repo, commentId: target.commentId, status: httpStatusOf(error) }, 'reaction not posted');
    }
  };

  return {
    async roleOf(repo: string, login: string): Promise<GitHubRole | undefined> {
      const key = `${repo.toLowerCase()}\n${login.toLowerCase()}`;
      const cached = cache.get(key);
      if (cached && now() - cached.at < options.cacheMs) return cached.role;
      const gh = await identities.octokitFor('read').catch(() => undefined);
      if (!gh) {
        options.logger?.warn({ repo }, "no GitHub read identity: a trigger's actor cannot be checked, so it is refused");
        return undefined;
      }
      let role: GitHubRole;
      try {
        const { data } = await gh.rest.repos.getCollaboratorPermissionLevel({ ...splitRepo(repo), username: login });
        role = roleFromGitHub(data);
      } catch (error) {
        // 404: no such user, or a repository the read identity cannot see. Neither admits anyone.
        if (httpStatusOf(error) !== 404) {
          options.logger?.warn({ repo, login, status: httpStatusOf(error) }, 'GitHub did not answer an actor’s permission');
          return undefined;
        }
        role = 'none';
      }
      cache.delete(key);
      cache.set(key, { role, at: now() });
      if (cache.size > limit) cache.delete(cache.keys().next().value!);
      return role;
    },

    refuse: (target: RefusalReactionTarget) => react(target, '-1'),
    react,

    /**
     * The door's answer in words in the conversation (a stop or steer the admission refused), at
     * most once under `effectKey` (the delivery's), with the write identity; logged when it fails,
     * never thrown (a door answers GitHub whatever became of its words).
     */
    async answer(target: { repo: string; number: number; text: string; effectKey: string }): Promise<void> {
      const token = await identities.tokenFor('write').catch((error: unknown) => {
        options.logger?.warn({ repo: target.repo, number: target.number, err: error }, 'door answer not posted: no write token');
        return undefined;
      });
      if (!token) return;
      const posted = await writes()
        .postComment({ repo: target.repo, number: target.number, body: target.text, effectKey: target.effectKey, attempt: 1 })
        .catch((error: unknown) => ({ status: 'failed', reason: String(error) }));
      if (posted.status !== 'confirmed')
        options.logger?.warn({ repo: target.repo, number: target.number, posted }, 'door answer not posted');
    },
  };
}

export type ActorGate = ReturnType<typeof createActorGate>;
