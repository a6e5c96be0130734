import { z } from 'zod';

/**
 * A board's settings (docs/board.md): what a repository's `.switchboard.yml` says under `board`
 * (and the deployment under `repositories.<owner/name>.board`), and what the deployment says of a
 * Slack channel's board under `board.channels.<channel id>`. Every key is optional: a board is off
 * until `enabled: true`, and then keeps the defaults of agents/board.ts.
 */

/** When rem-agent consolidates by itself: after a ship unit settles, after a thread's run ends. */
export const BOARD_CONSOLIDATE_AFTER = ['units', 'runs'] as const;
/** The GitHub roles that may be named keepers (`read` would be anyone on a public repository). */
export const BOARD_KEEPER_ROLES = ['triage', 'write', 'maintain', 'admin'] as const;

export const BoardSettingsSchema = z
  .object({
    enabled: z
      .boolean()
      .optional()
      .describe(
        'The board is on: every run here reads its kept entries, /board and /subconscious run work, and rem-agent consolidates after the work `consolidate` names (default false).',
      ),
    consolidate: z
      .array(z.enum(BOARD_CONSOLIDATE_AFTER))
      .optional()
      .describe(
        'When rem-agent reads finished work by itself: after a ship unit settles (units), after a thread run ends (runs) (default [units]).',
      ),
    maxEntries: z
      .number()
      .int()
      .min(1)
      .max(100)
      .optional()
      .describe('At most this many entries kept and at most this many proposed (default 30).'),
    maxEntryChars: z.number().int().min(40).max(500).optional().describe("An entry's longest text (default 300)."),
    maxPromptChars: z
      .number()
      .int()
      .min(200)
      .max(20_000)
      .optional()
      .describe('The kept entries a run reads, bounded to this many characters of its system prompt (default 4000).'),
    keepers: z
      .object({
        role: z
          .enum(BOARD_KEEPER_ROLES)
          .optional()
          .describe('A GitHub collaborator with at least this role on the repository keeps and retires entries (default write).'),
        people: z
          .array(z.string().min(1))
          .optional()
          .describe(
            'People (requester ids, e.g. slack:U012AB3CD or github:alice) who keep and retire entries, whatever their GitHub role.',
          ),
      })
      .strict()
      .optional()
      .describe('Who keeps and retires entries (operators always may); entries from anyone else’s work stay proposed.'),
  })
  .strict();

/** The deployment's `board` section: the boards of Slack channels, for work without a repository. */
export const BoardConfigSchema = z
  .object({
    channels: z
      .record(z.string().min(1), BoardSettingsSchema)
      .default({})
      .describe('Slack channel id -> its board (board:slack:<team>:<channel>), for runs there that work on no repository.'),
  })
  .strict()
  .prefault({});

export type BoardSettingsInput = z.infer<typeof BoardSettingsSchema>;
export type BoardConfig = z.output<typeof BoardConfigSchema>;
