import { BOARD_ENTRY_KINDS, type BoardEntryKind } from '../workflows/contracts/board';
import { parseDirectives } from './directives';

// Slash commands: the same words in Slack, on GitHub and from the CLI, because each door hands the
// thread the message's text and the thread reads them here (after the directives). Pure.

/** Every command, with how it is written and what it starts (the unknown-command answer lists them). */
export const SLASH_COMMANDS = [
  { name: 'review', usage: '/review [what to review]', does: 'code-review reviews the change, reporting only material issues' },
  { name: 'research', usage: '/research <question>', does: 'a research lead delegates to several research runs and cites every claim' },
  { name: 'subconscious', usage: '/subconscious run', does: "rem-agent reads this conversation's work and updates the team board" },
  { name: 'board', usage: '/board [keep <id> | retire <id> [reason] | add <kind>: <text>]', does: 'shows or changes the team board' },
] as const;

export type SlashCommand =
  | { kind: 'review'; text: string }
  | { kind: 'research'; text: string }
  | { kind: 'subconscious' }
  | { kind: 'board'; action: 'list' }
  | { kind: 'board'; action: 'keep'; entryId: string }
  | { kind: 'board'; action: 'retire'; entryId: string; reason?: string }
  | { kind: 'board'; action: 'add'; entryKind: BoardEntryKind; text: string }
  /** Not a command, or a command written wrong: the one-line answer says what is known. */
  | { kind: 'invalid'; reply: string };

const COMMAND = /^\/([A-Za-z][A-Za-z0-9_-]*)(?=\s|$)\s*([\s\S]*)$/;

/** The one line listing the commands. */
export function knownCommands(): string {
  return SLASH_COMMANDS.map((command) => command.usage).join(', ');
}

/**
 * The slash command a message's text (directives taken out) starts with, or undefined when it
 * starts with none. `/usr/bin is missing` is no command (a path), `/deploy now` is an unknown one.
 */
export function parseCommand(text: string): SlashCommand | undefined {
  const match = COMMAND.exec(text.trim());
  if (!match) return undefined;
  const name = match[1].toLowerCase();
  const rest = match[2].trim();
  switch (name) {
    case 'review':
      return { kind: 'review', text: rest };
    case 'research':
      return rest ? { kind: 'research', text: rest } : invalid('/research needs a question: /research <question>.');
    case 'subconscious':
      return /^run$/i.test(rest) ? { kind: 'subconscious' } : invalid('The subconscious command is /subconscious run.');
    case 'board':
      return boardCommand(rest);
    default:
      return invalid(`There is no /${name} command. Known: ${knownCommands()}.`);
  }
}

/** Whether a message (directives and all) starts with a slash command, known or not. */
export function isSlashCommand(message: string): boolean {
  return COMMAND.test(parseDirectives(message).text.trim());
}

function boardCommand(rest: string): SlashCommand {
  if (!rest || /^list$/i.test(rest)) return { kind: 'board', action: 'list' };
  const decide = /^(keep|retire)\s+(b\d{1,6})(?:\s+([\s\S]+))?$/i.exec(rest);
  if (decide) {
    const action = decide[1].toLowerCase() as 'keep' | 'retire';
    const reason = decide[3]?.trim();
    return action === 'keep'
      ? { kind: 'board', action, entryId: decide[2].toLowerCase() }
      : { kind: 'board', action, entryId: decide[2].toLowerCase(), ...(reason ? { reason } : {}) };
  }
  const add = /^add\s+([a-z]+)\s*:\s*([\s\S]+)$/i.exec(rest);
  if (add) {
    const entryKind = add[1].toLowerCase();
    if (!(BOARD_ENTRY_KINDS as readonly string[]).includes(entryKind))
      return invalid(`An entry's kind is one of ${BOARD_ENTRY_KINDS.join(', ')}: /board add convention: Money is integer cents.`);
    return { kind: 'board', action: 'add', entryKind: entryKind as BoardEntryKind, text: add[2].trim() };
  }
  return invalid('The board command is /board, /board keep <id>, /board retire <id> [reason] or /board add <kind>: <text>.');
}

function invalid(reply: string): SlashCommand {
  return { kind: 'invalid', reply };
}

/** The request of a `/research` run: the seed's strict orchestration, over the question. */
export function researchRequest(question: string): string {
  return [
    'Research lead (/research): do not research this yourself. Split the question into two to five independent lines of investigation, ' +
      'and delegate each to a `research` child with the task tool (agent_type "research", mode "background", every call in one turn), ' +
      'each prompt carrying all the context it needs and asking for a source on every claim. Collect their answers with wait_for_job, then write ' +
      'one answer that cites a source (a URL, or a repository path with lines) for every claim, says where the children disagreed, and lists what ' +
      'could not be verified.',
    '',
    `Question: ${question}`,
  ].join('\n');
}

/** The request of a `/review` run, from what the person wrote and where they wrote it. */
export function reviewRequest(text: string, where: { repo?: string; pullRequest?: number }): string {
  if (text) return where.pullRequest ? `${text}\n\n(On ${where.repo}#${where.pullRequest}.)` : text;
  if (where.repo && where.pullRequest) return `Review pull request #${where.pullRequest} of ${where.repo}.`;
  return 'Review the change this conversation is about.';
}
