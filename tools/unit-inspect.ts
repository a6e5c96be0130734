import { z } from './lazy-zod';
import { defineTool } from './tool';
import { unitIdField } from './unit-fields';

export const unitInspectTool = defineTool({
  name: 'unit_inspect',
  description: "Read one linked unit's state: phase, PR, head commit, review rounds, checks, open findings and budget spent.",
  input: () => z.object({ unitId: unitIdField() }).strict(),
  sideEffect: 'read',
  publishes: false,
  concurrencySafe: true,
  executor: 'workflow',
});
