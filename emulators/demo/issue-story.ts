import { setTimeout as delay } from 'node:timers/promises';
import { type LocalGitHub } from '../local-github';
import type { ReviewComment } from '../local-github/state';
import { type ProductProcess } from './product';
import { DEMO, fullRepoName } from './session';

export interface IssueStoryReport {
  issue: number;
  unitId: string;
  pullRequest: number;
  headSha: string;
  /** The ready message as the issue shows it. */
  readyText: string;
  /** The review's comments on the lines of the pull request. */
  inline: ReviewComment[];
}

/**
 * The demo's second story, on GitHub alone: Ana merges the first story's ready PR, files an
 * issue and assigns it to the bot. The issue's thread starts a ship unit seeded with it; its PR
 * says `Fixes #<issue>`, its review comments on the changed line with a suggestion, and the unit
 * reports on the issue that the PR is ready. `onThread` is told the issue's thread as soon as it
 * exists, so the demo's stop can settle its unit too.
 */
export async function playIssueStory(options: {
  github: LocalGitHub;
  maintainerToken: string;
  product: ProductProcess;
  firstPullRequest: number;
  onThread: (threadId: string) => void;
  print: (line: string) => void;
  timeoutMs: number;
}): Promise<IssueStoryReport> {
  const { github, product, print } = options;
  const as = async (method: string, path: string, body: unknown) => {
    const response = await fetch(`${github.apiUrl}/repos/${fullRepoName}${path}`, {
      method,
      headers: { authorization: `token ${options.maintainerToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { number: number };
  };
  await as('PUT', `/pulls/${options.firstPullRequest}/merge`, {});
  print(`${DEMO.person.name} merges PR #${options.firstPullRequest} on GitHub (the unit settles \`merged\`), then files an issue:`);
  const issue = await as('POST', '/issues', DEMO.issue);
  options.onThread(`thread:gh:${fullRepoName}#${issue.number}`);
  print(`  #${issue.number} "${DEMO.issue.title}", and assigns it to @${DEMO.bot.name}.`);
  await as('POST', `/issues/${issue.number}/assignees`, { assignees: [DEMO.bot.name] });

  let exited: string | undefined;
  void product.exited.then((how) => (exited = how));
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (exited) throw new Error(`Switchboard exited (${exited}) before the issue's PR was ready:\n${product.logTail()}`);
    const item = github.state.repo(DEMO.repo.owner, DEMO.repo.name)?.issues.get(issue.number);
    const ours = (item?.comments ?? []).filter((comment) => comment.user === `${DEMO.bot.name}[bot]`);
    for (const comment of ours) {
      const key = /<!-- switchboard-effect: (unit:\S+)\/ready\/([0-9a-f]{40}) -->/.exec(comment.body);
      const pullRequest = /^PR #(\d+)/.exec(comment.body)?.[1];
      if (key && pullRequest) {
        const pull = github.state.repo(DEMO.repo.owner, DEMO.repo.name)!.issues.get(Number(pullRequest))!;
        return {
          issue: issue.number,
          unitId: key[1],
          headSha: key[2],
          pullRequest: Number(pullRequest),
          readyText: comment.body.split('\n')[0],
          inline: pull.reviewComments,
        };
      }
    }
    const settled = ours.find((comment) => /^Ship unit \S+ /.test(comment.body));
    if (settled) throw new Error(`the issue's unit settled before its PR was ready: ${settled.body.split('\n')[0]}`);
    if (Date.now() > deadline)
      throw new Error(`no ready report on issue #${issue.number} within ${options.timeoutMs / 1000} s:\n${product.logTail()}`);
    await delay(250);
  }
}
