import { z } from './lazy-zod';
import { defineTool } from './tool';
import { repositoryField } from './github-fields';

export const fleetStatusTool = defineTool({
  name: 'fleet_status',
  description:
    'List the units, plans and runs you asked for, running and ended alike (up to 25 of each kind): each with its status ' +
    '(RUNNING, COMPLETED, TERMINATED, …), phase, outcome once settled, repository, PR and age.',
  input: () =>
    z
      .object({
        repo: repositoryField().optional().describe('Only work on this repository (owner/name).'),
        kind: z.enum(['unit', 'plan', 'run', 'all']).optional().describe('Which kind of work to list (default all).'),
      })
      .strict(),
  sideEffect: 'read',
  publishes: false,
  concurrencySafe: true,
  executor: 'activity',
});
