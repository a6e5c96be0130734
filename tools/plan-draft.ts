import { z } from './lazy-zod';
import { defineTool } from './tool';

const slug = () => z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'lowercase letters, digits and hyphens (at most 40)');

export const planDraftTool = defineTool({
  name: 'plan_draft',
  description:
    'Draft a plan for the person to confirm: units, each one change in one repository carried by a ship unit of its own ' +
    '(coding, review, fixes, checks) to a ready pull request, with the units each builds on. Nothing starts until the ' +
    'person who asked replies `plan confirm` in this conversation; a new draft replaces the last. The result says ' +
    'whether the plan is sound (its keys and dependencies) and what the person is asked.',
  input: () =>
    z
      .object({
        name: slug().describe("The plan's slug: it will run as plan:<repo>:<name>, its units as unit:<repo>:<name>-<key>."),
        repo: z
          .string()
          .regex(/^[\w.-]+\/[\w.-]+$/, 'owner/name')
          .describe('The repository every unit changes (owner/name).'),
        units: z
          .array(
            z
              .object({
                key: slug().describe('A short name, unique in the plan.'),
                request: z.string().min(1).describe('The complete change this unit makes: what, where, and how to know it is done.'),
                dependsOn: z.array(z.string()).optional().describe('Keys of units whose change this one builds on.'),
              })
              .strict(),
          )
          .min(1)
          .max(20)
          .describe('The units, in the order a person would read them.'),
        mergeAuthority: z
          .boolean()
          .optional()
          .describe("Whether the plan merges its ready units in dependency order (default: the deployment's plan.mergeAuthority)."),
      })
      .strict(),
  sideEffect: 'read',
  publishes: false,
  concurrencySafe: false,
  executor: 'workflow',
});
