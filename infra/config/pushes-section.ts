import { z } from 'zod';
import { DEFAULT_BRANCH_PREFIX } from '../../workflows/contracts/pushes';

/**
 * What runs and units may push (`github.pushes`), judged by the sandbox's network door on every
 * ref update of a push (activities/sandbox/network/push-rules.ts). A run owns the branch it or
 * its unit created under `branchPrefix`, and may fast-forward the head branch of a pull request
 * it was admitted to; the default branch, protected branches, tags and everyone else's branches
 * are never pushed to. The switches below only narrow that; a repository's `.switchboard.yml`
 * (or `repositories.<owner/name>.pushes`) may turn them off for itself, never on.
 */

/** `switchboard/`, `bots/switchboard/`: path parts git accepts, ending in `/`. */
const BRANCH_PREFIX = /^(?:[A-Za-z0-9_-][A-Za-z0-9._-]*\/)+$/;

export const PushesConfigSchema = z
  .object({
    branchPrefix: z
      .string()
      .regex(BRANCH_PREFIX, 'one or more branch-name parts, each ending in /, e.g. switchboard/')
      .refine((prefix) => !prefix.split('/').some((part) => part.endsWith('.lock') || part.endsWith('.')), 'not a valid branch prefix')
      .default(DEFAULT_BRANCH_PREFIX)
      .describe(
        'Where runs and units create their own branches (a unit: <prefix><owner>/<repo>-<slug>; a coding run: <prefix><thread>-<n>).',
      ),
    pullRequestHeads: z
      .boolean()
      .default(true)
      .describe('Whether a unit or coding run admitted to an existing pull request may push to its head branch (fast-forwards only).'),
    forceOwnBranch: z.boolean().default(true).describe('Whether a run may rewrite (force-push) a branch it created.'),
    deleteOwnBranch: z.boolean().default(true).describe('Whether a run may delete a branch it created.'),
  })
  .strict();

/** What a repository may say of its pushes: each switch can only be turned off (`true` changes nothing). */
export const RepositoryPushesSchema = z
  .object({
    pullRequestHeads: z.boolean().optional().describe("false: no run pushes to this repository's pull requests' branches."),
    forceOwnBranch: z.boolean().optional().describe('false: a run may not rewrite even the branch it created.'),
    deleteOwnBranch: z.boolean().optional().describe('false: a run may not delete even the branch it created.'),
  })
  .strict();

export type PushesConfig = z.infer<typeof PushesConfigSchema>;
export type RepositoryPushes = z.infer<typeof RepositoryPushesSchema>;
