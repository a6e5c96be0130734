import type { z as Zod } from 'zod';
import { FINDING_SEVERITIES, type Finding } from '../workflows/contracts/findings';
import { z } from './lazy-zod';
import { defineTool } from './tool';

/** One finding's schema; built on first use like every tool schema (tools/lazy-zod.ts). */
export const findingSchema = () =>
  z
    .object({
      severity: z
        .enum(FINDING_SEVERITIES)
        .describe(
          'blocking: must not merge; major: a real defect with wide impact; minor: a real, bounded defect worth fixing; nit: optional.',
        ),
      path: z.string().min(1).describe('File the finding is about, relative to the repository root.'),
      line: z
        .number()
        .int()
        .positive()
        .describe(
          'Line in the PR head version of the file (the last line, when the finding spans several); with side LEFT, in the base version.',
        ),
      side: z
        .enum(['RIGHT', 'LEFT'])
        .optional()
        .describe('RIGHT (the default): the line is in the PR head version. LEFT: a line the PR removed, numbered in the base version.'),
      startLine: z
        .number()
        .int()
        .positive()
        .optional()
        .describe('The first line, when the finding spans lines startLine..line (same side); omit for one line.'),
      title: z.string().min(1).max(200).describe('The defect in one line.'),
      scenario: z
        .string()
        .min(1)
        .describe('The failure scenario (the input or state that breaks it) or the explicit rule the change violates.'),
      impact: z.string().min(1).describe('What goes wrong in practice when it happens.'),
      suggestion: z
        .string()
        .optional()
        .describe(
          'A concrete fix as a drop-in replacement: the exact new text of the head version lines startLine..line (or of line). It is posted as a suggestion the author can commit. Omit when the fix is not such a replacement.',
        ),
    })
    .strict()
    .describe('One verified defect introduced by the pull request, or one broken rule that applies to the changed code.');

/**
 * The schema's output is the contract's `Finding` (workflows/contracts/findings.ts), field for field:
 * a field changed in one and not the other fails to compile here.
 */
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
export type FindingSchemaIsTheContract<Same extends true = Equals<Zod.infer<ReturnType<typeof findingSchema>>, Finding>> = Same;

export const submitReviewTool = defineTool({
  name: 'submit_review',
  description:
    'Submit the review verdict and findings for the pull request under review. Code validates the structure, applies ' +
    'the severity gate and posts it once to the exact commit reviewed, only while that commit is still the PR head. Call it ' +
    'once, at the end.',
  input: () =>
    z
      .object({
        verdict: z
          .enum(['approve', 'request_changes', 'comment'])
          .describe('approve: no finding at or above the gate; request_changes: findings must be addressed; comment: neither.'),
        summary: z.string().min(1).describe('Two or three sentences: what the PR does and the overall judgement.'),
        findings: z.array(findingSchema()).describe('Every finding, most severe first; empty for a clean approval.'),
        resolved: z
          .array(z.number().int().positive())
          .optional()
          .describe(
            'On a review that follows an earlier one: the numbers (as the request lists them) of the earlier findings this head resolves. Omit otherwise.',
          ),
        declines: z
          .array(
            z
              .object({
                finding: z
                  .number()
                  .int()
                  .positive()
                  .describe('The number (as the request lists it) of an earlier finding the coding round declined.'),
                accept: z
                  .boolean()
                  .describe('true: the reason holds and the finding is closed; false: it still needs a fix and stays open.'),
                answer: z.string().min(1).max(2000).describe("Your answer to the decline, posted in the finding's thread."),
              })
              .strict()
              .describe('Your judgement of one declined finding.'),
          )
          .optional()
          .describe(
            'On a review that follows a coding round which declined earlier findings: one entry for each finding the request lists as declined, and no other. Do not report a finding you keep open again as a new finding. Omit otherwise.',
          ),
      })
      .strict(),
  sideEffect: 'write',
  publishes: true,
  concurrencySafe: false,
  executor: 'workflow',
});
