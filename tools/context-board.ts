import { z } from './lazy-zod';
import { defineTool } from './tool';

/** What an entry says (the board's kinds: workflows/contracts/board.ts BOARD_ENTRY_KINDS). */
const KINDS = ['fact', 'command', 'convention', 'decision', 'pitfall'] as const;

export const contextBoardTool = defineTool({
  name: 'context_board',
  description:
    "Change the team board this run consolidates for: add an entry the next run here should know, replace one's text, " +
    'confirm one the work shows is still true, or retire one it shows is wrong. Entries from work a keeper started are kept ' +
    'at once; from anyone else’s they stay proposed until a person keeps them. The result says what the board did; a ' +
    'retired entry is never added again by a run.',
  input: () =>
    z
      .object({
        action: z
          .enum(['add', 'replace', 'confirm', 'retire'])
          .describe('What to do: add a new entry, or replace, confirm or retire one by its id.'),
        kind: z
          .enum(KINDS)
          .optional()
          .describe('For add (and optionally replace): fact, command (one that works), convention, decision (with its reason) or pitfall.'),
        text: z
          .string()
          .min(1)
          .max(500)
          .optional()
          .describe('For add and replace: the entry, one short sentence a later run can act on; never a secret, token or personal data.'),
        entry_id: z
          .string()
          .regex(/^b\d{1,6}$/, 'an entry id such as b3')
          .optional()
          .describe('For replace, confirm and retire: the entry id as the board lists it (b3).'),
        reason: z.string().min(1).max(300).optional().describe('For retire: what in the work shows the entry is wrong or stale.'),
      })
      .strict()
      .superRefine((input, context) => {
        const need = (field: 'kind' | 'text' | 'entry_id' | 'reason') => {
          if (input[field] === undefined) context.addIssue({ code: 'custom', path: [field], message: `${input.action} needs ${field}` });
        };
        if (input.action === 'add') {
          need('kind');
          need('text');
        } else need('entry_id');
        if (input.action === 'replace') need('text');
        if (input.action === 'retire') need('reason');
      }),
  sideEffect: 'write',
  // The board is read into every later run here and shown to people: a write outside this run.
  publishes: true,
  concurrencySafe: false,
  executor: 'activity',
});
