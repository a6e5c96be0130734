import { routingWords, formatCacheShare, formatCost, formatUsd, STEP_MARKS, stepsProgress } from '../../infra/run-format';
import type { RunOutcome, RunPhase, RunStatus } from '../../workflows/contracts';

/** The Stop button's action id; its value is the run id. */
export const STOP_ACTION_ID = 'switchboard_stop';
/** Metadata event type of a status card (its payload names the run). */
export const CARD_EVENT_TYPE = 'switchboard_card';
/** Metadata event type of an answer or reply. */
export const REPLY_EVENT_TYPE = 'switchboard_reply';
/** Metadata event type of a plan's card (its payload names the plan). */
export const PLAN_CARD_EVENT_TYPE = 'switchboard_plan_card';
/** Metadata event type of the root message of a plan unit's own thread (its payload names the unit). */
export const UNIT_THREAD_EVENT_TYPE = 'switchboard_unit_thread';

/** Section text is limited to 3 000 characters; the full answer follows in the thread. */
const CARD_ANSWER_LIMIT = 2_800;

const PHASE_WORDS: Record<RunPhase, string> = {
  starting: ':hourglass_flowing_sand: Starting',
  thinking: ':thought_balloon: Thinking',
  tools: ':hammer_and_wrench: Running tools',
  waiting: ':hourglass: Waiting',
  summarising: ':memo: Summarising',
  finished: ':checkered_flag: Finished',
};

const OUTCOME_WORDS: Record<RunOutcome, string> = {
  completed: ':white_check_mark: Completed',
  stopped: ':octagonal_sign: Stopped',
  budget: ':alarm_clock: Out of time budget',
  turns: ':repeat: Turn guard reached',
  tokens: ':scissors: Token cap reached',
  spend: ':moneybag: Spend cap reached',
  failed: ':x: Failed',
};

export interface CardView {
  status: RunStatus;
  final: boolean;
  answer?: string;
  webUiUrl?: string;
  /** The run's live session page, signed for it (server/session/); beside the Temporal link. */
  sessionUrl?: string;
}

/** The card's Block Kit blocks and its fallback text (notifications, screen readers). */
export function renderCard(view: CardView): { text: string; blocks: unknown[] } {
  const { status } = view;
  const state = view.final
    ? `${OUTCOME_WORDS[status.outcome ?? 'failed']}${boundWords(status)}${stoppedWords(status)}`
    : PHASE_WORDS[status.phase];
  const repo = repoContextWords(status);
  const facts = [
    `*Budget:* ${status.budget.description}`,
    `*Turns:* ${status.turns}/${status.turnGuard}`,
    `*Elapsed:* ${formatElapsed(status.elapsedMs)}`,
    ...(formatCost(status.cost)
      ? [`*Cost:* ${[formatCost(status.cost), formatCacheShare(status.cacheShare, status.tokens)].filter(Boolean).join(', ')}`]
      : []),
    ...(status.spendCap ? [`*Spend cap:* ${formatUsd(status.spendCap.usd)}`] : []),
    ...(repo.instructions ? [`*Instructions:* ${escape(repo.instructions)}`] : []),
    ...(repo.setup ? [`*Setup:* ${repo.setup}`] : []),
    ...(repo.board ? [`*Board:* ${escape(repo.board)}`] : []),
    ...(view.sessionUrl ? [`<${view.sessionUrl}|Open session>`] : []),
    ...(view.webUiUrl ? [`<${view.webUiUrl}|Open in Temporal>`] : []),
  ];
  const blocks: unknown[] = [
    { type: 'section', text: { type: 'mrkdwn', text: `*${escape(status.agent)}* · \`${escape(status.model)}\`\n${state}` } },
  ];
  const routed = routingWords(status);
  if (routed) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: escape(routed) }] });
  if (status.statusText && !view.final) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `> ${escape(status.statusText)}` } });
  // The run's checklist (update_status), updated in place with the card; the final card keeps where it ended.
  if (status.steps?.length)
    blocks.push({
      type: 'section',
      text: {
        type: 'mrkdwn',
        // Twenty steps of at most 100 characters each stay inside a section's 3 000.
        text: [
          `*Steps* (${stepsProgress(status.steps)})`,
          ...status.steps.map((step) => `${STEP_MARKS[step.state].slack} ${escape(shorten(step.title, 100))}`),
        ].join('\n'),
      },
    });
  if (view.final && view.answer?.trim()) {
    // A stopped run's last words are not its answer: they are shown as what it had so far.
    const unfinished = status.outcome === 'stopped' ? '_Unfinished: it was stopped before it answered. What it had written so far:_\n' : '';
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `${unfinished}${clip(view.answer.trim(), CARD_ANSWER_LIMIT)}` } });
  }
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: facts.join('  ·  ') }] });
  if (!view.final) {
    blocks.push({
      type: 'actions',
      block_id: 'controls',
      elements: [
        { type: 'button', action_id: STOP_ACTION_ID, style: 'danger', text: { type: 'plain_text', text: 'Stop' }, value: status.runId },
      ],
    });
  }
  const line = view.final
    ? `${status.agent} (${status.model}): ${plain(state)}`
    : `${status.agent} (${status.model}): ${plain(state)}${status.statusText ? ` - ${status.statusText}` : ''}`;
  return { text: line, blocks };
}

/** What the run brought from its repository, in words for the card: the instruction files it loaded, how its setup went, the team board it read. */
export function repoContextWords(status: RunStatus): { instructions?: string; setup?: string; board?: string } {
  const setup = status.setup;
  const seconds = setup?.durationMs !== undefined ? ` in ${formatElapsed(setup.durationMs)}` : '';
  const setupWords = !setup
    ? undefined
    : {
        running: 'running',
        ran: `done${seconds}`,
        cached: 'done before in this workspace, not run again',
        restored: "copied from this host's cache of an earlier run, not run again",
        failed: `failed${setup.exitCode !== undefined ? ` (exit ${setup.exitCode})` : ''}${seconds}; the run goes on`,
        timed_out: 'did not finish in its time; the run goes on',
      }[setup.state];
  return {
    ...(status.instructions?.length ? { instructions: status.instructions.join(', ') } : {}),
    ...(setupWords ? { setup: setupWords } : {}),
    ...(status.board
      ? { board: `${status.board.id} (${status.board.entries} kept ${status.board.entries === 1 ? 'entry' : 'entries'})` }
      : {}),
  };
}

/** ` (the $2.00 per-run cap …)`: which bound ended the run, in words, for a run a bound ended. */
export function boundWords(status: RunStatus): string {
  return status.endedBy && BOUND_OUTCOMES.includes(status.outcome ?? 'failed') ? ` (${status.endedBy})` : '';
}

const BOUND_OUTCOMES: RunOutcome[] = ['budget', 'turns', 'tokens', 'spend'];

/**
 * ` by <@U0ANA>: enough`: who stopped a stopped run and why. On a Slack card (`slack`) a Slack
 * user id is a mention, which Slack shows as the person's name, and text is escaped; elsewhere
 * a GitHub actor is their login.
 */
export function stoppedWords(status: RunStatus, slack = true): string {
  if (status.outcome !== 'stopped' || !status.stop) return '';
  const { by, reason } = status.stop;
  const text = (words: string) => (slack ? escape(words) : words);
  const who = !by ? '' : slack && /^[UW][A-Z0-9]{2,}$/.test(by) ? ` by <@${by}>` : ` by ${text(by.replace(/^github:/, ''))}`;
  return `${who}${reason ? `: ${text(reason)}` : ''}`;
}

export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`;
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}

/** Slack's three control characters in text. */
function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function plain(words: string): string {
  return words.replace(/^:[a-z_]+: /, '');
}

function clip(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const cut = text.slice(0, limit);
  // Never leave a code block open in the card's excerpt.
  const open = (cut.match(/```/g)?.length ?? 0) % 2 === 1;
  return `${cut}${open ? '\n```' : ''}\n… (the full answer is in the thread)`;
}

function shorten(text: string, limit: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > limit ? `${line.slice(0, limit - 1)}…` : line;
}
