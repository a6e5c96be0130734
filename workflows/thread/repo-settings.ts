import type { AgentSetup } from '../../activities/agents/agent-setup';
import type { RepoSettingsResult } from '../../activities/github';
import { parseDirectives } from '../../agents';
import type { ReplyTarget, ThreadMessage } from '../contracts';

/**
 * The `patched()` id of a thread that reads the repository's settings before it decides a
 * message on it: the repository's `agents.allowed` is then one of the admission's facts, and a
 * broken `.switchboard.yml` is said once in the conversation. Threads recorded before it did not.
 */
export const THREAD_REPO_SETTINGS = 'thread-repo-settings';

/** The repository a message's work would be on: its `in owner/name:`, its channel's default, else the GitHub conversation's. */
export function repoInPlay(setup: Pick<AgentSetup, 'config'>, message: ThreadMessage, replyTarget: ReplyTarget): string | undefined {
  const named = parseDirectives(message.text).directives.repo;
  const channel = message.channelId ? setup.config.channels[message.channelId]?.defaultRepo : undefined;
  return named ?? channel ?? (replyTarget.kind === 'github' ? replyTarget.repo : undefined);
}

/** The admission's facts with what the repository's own settings allow (the file and the deployment's section, merged). */
export function withRepository(setup: AgentSetup, result: RepoSettingsResult | undefined): AgentSetup {
  if (!result) return setup;
  const { agents, mcp, board } = result.settings;
  const repo = result.repo.toLowerCase();
  return {
    ...setup,
    ...(agents ? { repositories: { ...setup.repositories, [repo]: agents } } : {}),
    ...(mcp ? { repositoryMcp: { ...setup.repositoryMcp, [repo]: mcp } } : {}),
    ...(board ? { repositoryBoards: { ...setup.repositoryBoards, [repo]: board } } : {}),
  };
}

/**
 * What a conversation is told once per version of a broken `.switchboard.yml`: each problem,
 * naming its key, and that those keys were ignored. Keyed by the file's blob, so the same file
 * is said once in a conversation whichever workflow says it first.
 */
export function settingsNotice(result: RepoSettingsResult | undefined): { effectKey: string; text: string } | undefined {
  if (!result || result.file !== 'found' || result.problems.length === 0 || !result.fileSha) return undefined;
  const lines = result.problems.map((problem) => `- \`${problem.key}\`: ${problem.message}`);
  return {
    effectKey: `settings:${result.repo.toLowerCase()}@${result.fileSha}`,
    text: [
      `${result.repo}'s \`.switchboard.yml\` (at ${result.commitSha?.slice(0, 12) ?? 'its default branch'}) has ${result.problems.length === 1 ? 'a problem' : `${result.problems.length} problems`}; those keys were ignored and the rest applies:`,
      ...lines,
    ].join('\n'),
  };
}
