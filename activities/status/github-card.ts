import type { RunOutcome, RunPhase, RunStatus } from '../../workflows/contracts';
import { formatCacheShare, formatCost, formatUsd, routingWords, STEP_MARKS, stepsProgress } from '../../infra/run-format';
import { boundWords, formatElapsed, repoContextWords, stoppedWords } from '../slack/card-blocks';

/** GitHub's limit on a comment body, less room for the effect marker. */
export const GITHUB_COMMENT_LIMIT = 65_000;

const PHASE_WORDS: Record<RunPhase, string> = {
  starting: '⏳ Starting',
  thinking: '💭 Thinking',
  tools: '🛠️ Running tools',
  waiting: '⌛ Waiting',
  summarising: '📝 Summarising',
  finished: '🏁 Finished',
};

const OUTCOME_WORDS: Record<RunOutcome, string> = {
  completed: '✅ Completed',
  stopped: '🛑 Stopped',
  budget: '⏰ Out of time budget',
  turns: '🔁 Turn guard reached',
  tokens: '✂️ Token cap reached',
  spend: '💰 Spend cap reached',
  failed: '❌ Failed',
};

const ANSWER_WORDS: Record<NonNullable<RunStatus['answersTo']> | 'conversation', string> = {
  conversation: 'The answer follows below.',
  unit: "Its result goes into the ship unit's report.",
  parent: 'Its answer went to the run that delegated to it.',
  review: 'Its answer is the review it posted on this pull request.',
};

/**
 * The status comment's markdown: agent, model, phase (or outcome), the latest status line and
 * the facts. The answer is its own comment, so the final card only points at it.
 */
export function renderGitHubCard(view: { status: RunStatus; final: boolean; webUiUrl?: string; sessionUrl?: string }): string {
  const { status } = view;
  const state = view.final
    ? `${OUTCOME_WORDS[status.outcome ?? 'failed']}${boundWords(status)}${stoppedWords(status, false)}`
    : PHASE_WORDS[status.phase];
  const cost = formatCost(status.cost);
  const repo = repoContextWords(status);
  const facts = [
    `Budget: ${status.budget.description}`,
    `Turns: ${status.turns}/${status.turnGuard}`,
    `Elapsed: ${formatElapsed(status.elapsedMs)}`,
    ...(cost ? [`Cost: ${[cost, formatCacheShare(status.cacheShare, status.tokens)].filter(Boolean).join(', ')}`] : []),
    ...(status.spendCap ? [`Spend cap: ${formatUsd(status.spendCap.usd)}`] : []),
    ...(repo.instructions ? [`Instructions: ${repo.instructions}`] : []),
    ...(repo.setup ? [`Setup: ${repo.setup}`] : []),
    ...(repo.board ? [`Board: ${repo.board}`] : []),
    ...(view.sessionUrl ? [`[Open session](${view.sessionUrl})`] : []),
    ...(view.webUiUrl ? [`[Open in Temporal](${view.webUiUrl})`] : []),
  ];
  const lines = [`**${status.agent}** · \`${status.model}\` — ${state}`];
  const routed = routingWords(status);
  if (routed) lines.push(`<sub>${routed}</sub>`);
  if (!view.final && status.statusText) lines.push('', `> ${status.statusText.replace(/\n/g, ' ')}`);
  // The run's checklist (update_status), edited in place with the card.
  if (status.steps?.length)
    lines.push(
      '',
      `**Steps** (${stepsProgress(status.steps)})`,
      ...status.steps.map(
        (step) =>
          `- ${STEP_MARKS[step.state].mark} ${step.title.replace(/\n/g, ' ')}${step.state === 'done' || step.state === 'pending' ? '' : ` (${STEP_MARKS[step.state].words})`}`,
      ),
    );
  // Only a conversation's own run has its answer posted next; a unit's or a parent's run reports to them.
  if (view.final) lines.push('', ANSWER_WORDS[status.answersTo ?? 'conversation']);
  lines.push('', `<sub>${facts.join(' · ')}</sub>`);
  // The setup's output, folded: what went wrong when it failed, what it did when it ran.
  if (status.setup?.output && status.setup.state !== 'cached' && status.setup.state !== 'restored')
    lines.push('', `<details><summary>Setup output</summary>\n\n\`\`\`\n${status.setup.output.replace(/```/g, "'''")}\n\`\`\`\n</details>`);
  return lines.join('\n');
}

/** The answer in comment-sized parts, cut at a line break where one is near. */
export function splitForGitHub(text: string, limit = GITHUB_COMMENT_LIMIT): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const newline = rest.lastIndexOf('\n', limit);
    const cut = newline > limit / 2 ? newline : limit;
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut).replace(/^\n/, '');
  }
  parts.push(rest);
  return parts;
}
