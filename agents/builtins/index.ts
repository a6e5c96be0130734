import { type AgentDefinition, type AgentDefinitionInput, defineAgent } from '../definition';
import { coding } from './coding';
import { codeReview } from './code-review';
import { conductor } from './conductor';
import { explore } from './explore';
import { general } from './general';
import { orchestrator } from './orchestrator';
import { research } from './research';
import { remAgent } from './rem-agent';
import { debugRole, exploreRole, generalPurposeRole, researcherRole, reviewerRole, rubberDuckRole, taskRole, workerRole } from './roles';
import { review } from './review';
import { ship } from './ship';

export { DETACH_RECIPE } from './explore';

/** The built-ins as written, before defaults (agents/builtins.test.ts parses each with the schema). */
export const BUILTIN_INPUTS: readonly AgentDefinitionInput[] = [
  general,
  coding,
  review,
  ship,
  research,
  explore,
  orchestrator,
  conductor,
  codeReview,
  remAgent,
  exploreRole,
  workerRole,
  reviewerRole,
  debugRole,
  researcherRole,
  generalPurposeRole,
  taskRole,
  rubberDuckRole,
];

/** The built-in agents, in catalog order. */
export const BUILTIN_AGENTS: readonly AgentDefinition[] = BUILTIN_INPUTS.filter((input) => input.kind !== 'role').map(defineAgent);

/** The built-in specialist roles a run may delegate to with its task tool. */
export const BUILTIN_ROLES: readonly AgentDefinition[] = BUILTIN_INPUTS.filter((input) => input.kind === 'role').map(defineAgent);
