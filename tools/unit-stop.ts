import { z } from './lazy-zod';
import { defineTool } from './tool';
import { unitIdField } from './unit-fields';

export const unitStopTool = defineTool({
  name: 'unit_stop',
  description: 'Stop a linked unit: its in-flight run is cancelled and it settles as stopped, keeping its PR as is.',
  input: () =>
    z
      .object({
        unitId: unitIdField(),
        reason: z.string().min(1).describe("Why, in a sentence; shown in the unit's final report."),
      })
      .strict(),
  sideEffect: 'write',
  publishes: true,
  concurrencySafe: false,
  executor: 'workflow',
});
