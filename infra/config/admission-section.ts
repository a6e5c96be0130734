import { z } from 'zod';
import { REPOSITORY_PATTERN } from '../../tools/github-fields';

/**
 * The `admission` section: who may trigger work from GitHub and who counts as an operator.
 * The rest of the policy (which agents and models a person may use, channel and person grants)
 * is the `agents` section; both are read by the one admission (agents/admission.ts).
 */

/**
 * The GitHub roles a trigger may be required to hold, lowest first. `read` is not among them:
 * on a public repository everyone reads, so it would admit the whole internet.
 */
export const GITHUB_TRIGGER_ROLES = ['triage', 'write', 'maintain', 'admin'] as const;

const roleField = (what: string) =>
  z
    .enum(GITHUB_TRIGGER_ROLES, {
      error: () => `expected one of ${GITHUB_TRIGGER_ROLES.join(', ')} (read would admit anyone on a public repository)`,
    })
    .describe(what);

const AgentRolesSchema = z.record(
  z.string().regex(/^[a-z][a-z0-9-]*$/, 'an agent id'),
  roleField('The role a GitHub actor needs for this agent (a shell agent with the write identity never below write).'),
);

export const AdmissionConfigSchema = z
  .object({
    operators: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'People who may stop any run, unit or plan and read and steer any API job or unit, as each surface names them: ' +
          'Slack user ids (U…), API token users, `github:<login>`. The CLI is always an operator.',
      ),
    github: z
      .object({
        permission: roleField('The role on the repository a GitHub actor needs to start or steer work (default write).').default('write'),
        agents: AgentRolesSchema.default({}).describe('agent id -> the role its GitHub triggers need instead (e.g. review: triage).'),
        repos: z
          .record(
            z.string().regex(REPOSITORY_PATTERN, 'expected owner/name'),
            z
              .object({
                permission: roleField('This repository’s role instead of github.permission.').optional(),
                agents: AgentRolesSchema.optional().describe('agent id -> the role this repository’s triggers need for it.'),
              })
              .strict(),
          )
          .default({})
          .describe('owner/name -> its own roles (they override the defaults above).'),
        cacheSeconds: z
          .number()
          .int()
          .min(0)
          .max(3_600)
          .default(60)
          .describe('How long an actor’s permission, read from GitHub, is reused before it is read again.'),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export type AdmissionConfig = z.output<typeof AdmissionConfigSchema>;
export type AdmissionConfigInput = z.input<typeof AdmissionConfigSchema>;
