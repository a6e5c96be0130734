import { z } from './lazy-zod';
import { defineTool } from './tool';
import { unitIdField } from './unit-fields';

export const unitInspectTool = defineTool({
  name: 'unit_inspect',
  description:
    "Read one linked unit's state: phase, PR, head commit, review rounds, checks, open findings (with their ids), questions waiting for a person and budget spent.",
  input: () => z.object({ unitId: unitIdField() }).strict(),
  sideEffect: 'read',
  publishes: false,
  concurrencySafe: true,
  executor: 'workflow',
});
