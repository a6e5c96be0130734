import { type AgentDefinition, defineAgent } from '../definition';
import { coding } from './coding';
import { conductor } from './conductor';
import { explore } from './explore';
import { general } from './general';
import { orchestrator } from './orchestrator';
import { research } from './research';
import { debugRole, exploreRole, researcherRole, reviewerRole, workerRole } from './roles';
import { review } from './review';
import { ship } from './ship';

export { DETACH_RECIPE } from './explore';

/** The built-in agents, in catalog order. */
export const BUILTIN_AGENTS: readonly AgentDefinition[] = [general, coding, review, ship, research, explore, orchestrator, conductor].map(
  defineAgent,
);

/** The built-in specialist roles a run may delegate to with its task tool. */
export const BUILTIN_ROLES: readonly AgentDefinition[] = [exploreRole, workerRole, reviewerRole, debugRole, researcherRole].map(
  defineAgent,
);
