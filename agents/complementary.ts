import { type AgentsConfig } from './config';
import { type AgentDefinition } from './definition';
import { modelFamily } from './model-choice';

// 001's rubber-duck runs on a model of another family than its parent's: a critic on the parent's
// own model shares its blind spots. Pure; the profile resolver and the task tool both ask here.

/**
 * The model a complementary role (rubber-duck) runs on beside a parent on `parentModel`: the first
 * of `agents.entries.<role>.complementary` (then its `model`) of another family than the parent's.
 * Undefined for a role that is not complementary; null when none may be used, and then the role is
 * not offered to that parent (`rolesOff`, docs/agents.md).
 */
export function complementaryModel(
  role: Pick<AgentDefinition, 'id' | 'complementary'>,
  parentModel: string,
  config?: Pick<AgentsConfig, 'entries'>,
): string | null | undefined {
  if (!role.complementary) return undefined;
  const entry = (config?.entries ?? {})[role.id];
  const candidates = [...(entry?.complementary ?? []), ...(entry?.model ? [entry.model] : [])];
  return candidates.find((model) => modelFamily(model) !== modelFamily(parentModel)) ?? null;
}

/** The complementary roles a parent on `parentModel` is not offered, with why (the About block and the task tool say so). */
export function complementaryRolesOff(
  roles: ReadonlyArray<Pick<AgentDefinition, 'id' | 'complementary'>>,
  parentModel: string,
  config?: Pick<AgentsConfig, 'entries'>,
): Array<{ role: string; why: string }> {
  return roles
    .filter((role) => complementaryModel(role, parentModel, config) === null)
    .map((role) => ({
      role: role.id,
      why: `it runs on a model of another family than this run's ${parentModel}, and agents.entries.${role.id}.complementary names none`,
    }));
}
