import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import { type Command } from 'commander';
import { admitBoard, boardPolicy, boardTarget, entryLine, repoBoardId, type BoardPolicy } from '../../agents';
import { changeBoard, queryBoard } from '../../infra/board-client';
import { type LoadedConfig } from '../../infra/config';
import { BOARD_ENTRY_KINDS, type BoardEntryKind } from '../../workflows/contracts';
import { withCliClient } from '../temporal-client';

/** `owner/name` or a board id, as the board's id and what the deployment's config says of it. */
export function boardOf(target: string, loaded: LoadedConfig): { boardId: string; repo?: string; policy: BoardPolicy } {
  if (target.startsWith('board:')) {
    const what = boardTarget(target);
    if (!what) throw new Error(`"${target}" is not a board id: board:<owner>/<name> or board:slack:<team>:<channel>`);
    if ('repo' in what) return boardOf(what.repo, loaded);
    const settings = loaded.config.board.channels[what.slack.channel];
    return { boardId: target, policy: boardPolicy(target, undefined, settings, `board.channels.${what.slack.channel}`) };
  }
  if (!/^[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/.test(target)) throw new Error(`"${target}" is neither owner/name nor a board id`);
  const deployment = Object.entries(loaded.config.repositories).find(([name]) => name.toLowerCase() === target.toLowerCase())?.[1];
  const boardId = repoBoardId(target);
  return { boardId, repo: target, policy: boardPolicy(boardId, undefined, deployment?.board, `repositories.${target}.board`) };
}

/**
 * `switchboard board <owner/name | board id> [list | keep <id> | retire <id> | add <kind> <text>]`:
 * an operator's view and corrections of a team board (docs/board.md). The CLI holds the Temporal
 * client, so the admission (`admitBoard`) admits it as an operator; the board's own rules still
 * apply (a change it refuses is said, exit 1).
 */
export function registerBoardCommand(program: Command): void {
  program
    .command('board')
    .description(
      'read and correct a team board: list its entries (kept, proposed, retired), keep or retire one, or add one (docs/board.md)',
    )
    .argument('<target>', 'owner/name, or a board id (board:slack:<team>:<channel>)')
    .argument('[action]', 'list (default) | keep <id> | retire <id> | add <kind> <text…>', 'list')
    .argument('[words...]', 'the entry id, or the kind and the text')
    .option('--reason <text>', 'retire: why (kept with the entry)')
    .option('--json', 'list: print the board as JSON')
    .action(async (target: string, action: string, words: string[], options: { reason?: string; json?: boolean }) => {
      const change = boardChange(action, words, options.reason);
      if ('problem' in change) {
        console.error(change.problem);
        process.exitCode = 1;
        return;
      }
      await withCliClient(async ({ client, taskQueue, loaded }) => {
        const subject = boardOf(target, loaded);
        if (change.action === 'list') return void (await list(client, subject.boardId, options.json));
        const person = { surface: 'cli' as const, userId: `cli:${operatorName()}` };
        const admitted = admitBoard({ admission: loaded.config.admission }, person, subject, change.action);
        if (!admitted.ok) throw new Error(admitted.message);
        const key = `cli:${randomUUID()}`;
        const actor = { kind: 'person' as const, id: person.userId, keeps: admitted.keeps };
        const outcome = await changeBoard(client, taskQueue, subject.boardId, { ...change, key, actor }, key);
        if (!outcome.ok) throw new Error(`${subject.boardId} did not take that: ${outcome.refused}`);
        console.log(`${subject.boardId}: ${outcome.result.message}\n  ${entryLine(outcome.result.entry)}`);
        if (!subject.policy.enabled && subject.repo)
          console.log(
            `Note: runs read this board only where ${subject.repo}'s .switchboard.yml (or repositories.${subject.repo}.board) sets board.enabled.`,
          );
      });
    });
}

/** What an operator asks of a board (the board's own `replace` and `confirm` are a run's). */
type Change =
  | { action: 'list' }
  | { action: 'keep'; entryId: string }
  | { action: 'retire'; entryId: string; reason?: string }
  | { action: 'add'; kind: BoardEntryKind; text: string };

/** The change the words ask for, or what is wrong with them. */
export function boardChange(action: string, words: string[], reason?: string): Change | { problem: string } {
  const [first, ...rest] = words;
  switch (action) {
    case 'list':
      return words.length ? { problem: 'list takes no more words' } : { action: 'list' };
    case 'keep':
    case 'retire':
      if (!first || rest.length) return { problem: `${action} takes one entry id, e.g. switchboard board acme/app ${action} b3` };
      return action === 'keep' ? { action, entryId: first } : { action, entryId: first, ...(reason ? { reason } : {}) };
    case 'add':
      if (!first || !(BOARD_ENTRY_KINDS as readonly string[]).includes(first))
        return { problem: `The kind is one of ${BOARD_ENTRY_KINDS.join(', ')} (got "${first ?? ''}").` };
      if (!rest.length) return { problem: "add needs the entry's text after its kind" };
      return { action, kind: first as BoardEntryKind, text: rest.join(' ') };
    default:
      return { problem: `Unknown action "${action}": list, keep <id>, retire <id> or add <kind> <text>.` };
  }
}

async function list(client: Parameters<typeof queryBoard>[0], boardId: string, json?: boolean): Promise<void> {
  const state = await queryBoard(client, boardId);
  if (json) return void console.log(JSON.stringify(state ?? { boardId, entries: [] }, null, 2));
  const entries = state?.entries ?? [];
  console.log(`${boardId}: ${count(entries, 'kept')} kept, ${count(entries, 'proposed')} proposed, ${count(entries, 'retired')} retired`);
  for (const entry of entries)
    console.log(`  ${entryLine(entry)}  (by ${entry.source.by}${entry.source.runId ? ` via ${entry.source.runId}` : ''})`);
}

function count(entries: ReadonlyArray<{ state: string }>, state: string): number {
  return entries.filter((entry) => entry.state === state).length;
}

function operatorName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'operator';
  }
}
