import { z } from './lazy-zod';
import { defineTool } from './tool';

/** How a coding run answers one finding (kept in step with workflows/contracts/findings.ts). */
const KINDS = ['fixed', 'declined', 'question'] as const;
const REASONS = ['not_a_defect', 'out_of_scope', 'conflicts_with_instruction'] as const;

export const submitDispositionsTool = defineTool({
  name: 'submit_dispositions',
  description:
    "In a ship unit's coding round that follows a review: answer every open finding the request lists (by its id, e.g. F3) " +
    'exactly once, as fixed (naming the commit when you made it), declined (with the reason) or question (what you need ' +
    'to know). Code checks the list: a missing, repeated or unknown id is refused back to you and nothing is recorded. When the run ends, ' +
    "the unit posts each answer as a reply in that finding's review thread (or on the pull request when it has no line); a question " +
    "waits for a person's answer there. In any other run there is nothing to answer and the call is refused.",
  input: () =>
    z
      .object({
        dispositions: z
          .array(
            z
              .object({
                finding: z
                  .string()
                  .regex(/^F\d+$/)
                  .describe('The finding id as the request lists it, e.g. F3.'),
                disposition: z
                  .enum(KINDS)
                  .describe(
                    'fixed: the branch now fixes it; declined: it should not be changed (give the reason); question: you need a person to decide or explain.',
                  ),
                commit: z
                  .string()
                  .regex(/^[0-9a-f]{7,40}$/)
                  .optional()
                  .describe(
                    'fixed: the SHA (or an unambiguous prefix) of your commit with the fix. Omit when you leave the changes for Switchboard to commit: the reply then names the pushed commit of this round.',
                  ),
                reason: z
                  .enum(REASONS)
                  .optional()
                  .describe(
                    'declined (required): not_a_defect, out_of_scope, or conflicts_with_instruction (the request, a steer or the repository rules say otherwise).',
                  ),
                text: z
                  .string()
                  .min(1)
                  .max(2000)
                  .describe(
                    "The reply posted on the finding's thread: what changed (fixed), the reasoning (declined), or exactly what you need to know (question).",
                  ),
              })
              .strict()
              .describe('The answer to one finding.'),
          )
          .min(1)
          .max(50)
          .describe('One answer per open finding, each id once.'),
      })
      .strict(),
  sideEffect: 'write',
  publishes: true,
  concurrencySafe: false,
  executor: 'workflow',
});

/** One answer as the tool's schema parses it. */
export interface DispositionInput {
  finding: string;
  disposition: (typeof KINDS)[number];
  commit?: string;
  reason?: (typeof REASONS)[number];
  text: string;
}

/**
 * The problems of a submission against the open finding ids, in words (empty: it answers each
 * open finding exactly once): unknown ids, ids named twice, ids left out, a decline without its reason.
 */
export function dispositionProblems(dispositions: readonly DispositionInput[], open: readonly string[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const answer of dispositions) {
    if (!open.includes(answer.finding)) problems.push(`${answer.finding} is not an open finding of this round`);
    else if (seen.has(answer.finding)) problems.push(`${answer.finding} is answered more than once`);
    seen.add(answer.finding);
    if (answer.disposition === 'declined' && !answer.reason)
      problems.push(`${answer.finding} is declined without a reason (not_a_defect, out_of_scope or conflicts_with_instruction)`);
  }
  const missing = open.filter((id) => !seen.has(id));
  if (missing.length > 0) problems.push(`${missing.join(', ')} ${missing.length === 1 ? 'has' : 'have'} no answer`);
  return problems;
}
