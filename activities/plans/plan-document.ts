import { parseDocument } from 'yaml';
import { z } from 'zod';
import { isRepositoryName } from '../../tools/github-fields';
import { topologicalOrder } from '../../workflows/plan/plan-graph';
import type { PlanUnitSpec } from '../../workflows/contracts';
import type { PlanFile } from '../../workflows/contracts/plan-file';

// A plan document, as the CLI reads it from a file, a chat door from a message after `plan`, and
// the HTTP API and MCP from a JSON body: one schema and one set of checks, each problem naming its
// key. It loads zod and yaml, which workflow code must not: the thread has it read by an activity.

const slug = /^[a-z0-9][a-z0-9-]{0,39}$/;

const unitSchema = z.strictObject({
  key: z.string().regex(slug, 'must be lowercase letters, digits and hyphens (at most 40)'),
  request: z.string().trim().min(1, 'must say what the unit should change'),
  dependsOn: z.array(z.string()).optional(),
});

/** The plan's fields: its name, repository, merge authority, model and units (the HTTP API's body too). */
export const planSchema = z.strictObject({
  name: z.string().regex(slug, 'must be lowercase letters, digits and hyphens (at most 40)'),
  repo: z
    .string()
    .refine((value) => isRepositoryName(value), 'must be owner/name')
    .optional(),
  mergeAuthority: z.boolean().optional(),
  model: z.string().min(1).optional(),
  units: z.array(unitSchema).min(1, 'must list at least one unit'),
});

/** `units[1].dependsOn[0]`-style names for a zod path. */
function keyName(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>(
    (name, part) => (typeof part === 'number' ? `${name}[${part}]` : name ? `${name}.${String(part)}` : String(part)),
    '',
  );
}

/**
 * Reads and checks a plan. Returns the plan, or every problem found, each naming its key
 * (`units[1].dependsOn[0]: unknown unit "db"`), so one pass shows all that needs fixing.
 */
export function parsePlanFile(text: string): { plan: PlanFile } | { problems: string[] } {
  const document = parseDocument(text);
  if (document.errors.length > 0) return { problems: document.errors.map((error) => `not YAML: ${error.message.split('\n')[0]}`) };
  const raw: unknown = document.toJS();
  const parsed = planSchema.safeParse(raw);
  if (!parsed.success) {
    return {
      problems: parsed.error.issues.map((issue) => {
        const where = keyName(issue.path);
        const at = where || 'the plan';
        if (issue.code === 'unrecognized_keys')
          return `${at}: unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => `"${key}"`).join(', ')}`;
        if (!where && issue.code === 'invalid_type')
          return 'the plan: must be a YAML mapping with name, units and optionally repo, mergeAuthority, model';
        // zod 4 leaves the input out of issues; its message names what it received.
        const message = issue.code === 'invalid_type' && issue.message.endsWith('received undefined') ? 'is required' : issue.message;
        return `${at}: ${message}`;
      }),
    };
  }
  const plan = parsed.data;
  const problems = graphProblems(plan.units);
  if (problems.length > 0) return { problems };
  return { plan };
}

/** Duplicate keys, unknown or self dependencies and cycles, each naming its key. */
export function graphProblems(units: PlanUnitSpec[]): string[] {
  const problems: string[] = [];
  const seen = new Map<string, number>();
  units.forEach((unit, index) => {
    const first = seen.get(unit.key);
    if (first !== undefined) problems.push(`units[${index}].key: "${unit.key}" is already the key of units[${first}]`);
    else seen.set(unit.key, index);
  });
  units.forEach((unit, index) =>
    (unit.dependsOn ?? []).forEach((dependency, position) => {
      const where = `units[${index}].dependsOn[${position}]`;
      if (dependency === unit.key) problems.push(`${where}: "${unit.key}" cannot depend on itself`);
      else if (!seen.has(dependency)) problems.push(`${where}: unknown unit "${dependency}" (known: ${[...seen.keys()].join(', ')})`);
    }),
  );
  if (problems.length === 0) {
    const order = new Set(topologicalOrder(units));
    const caught = units.filter((unit) => !order.has(unit.key)).map((unit) => unit.key);
    if (caught.length > 0) problems.push(`units: the dependencies form a cycle (these can never start: ${caught.join(', ')})`);
  }
  return problems;
}
