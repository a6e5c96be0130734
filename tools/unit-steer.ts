import { z } from './lazy-zod';
import { defineTool } from './tool';
import { unitIdField } from './unit-fields';

export const unitSteerTool = defineTool({
  name: 'unit_steer',
  description: "Send a steering message to a linked unit; it joins the unit's next coding round.",
  input: () =>
    z
      .object({
        unitId: unitIdField(),
        text: z.string().min(1).describe('The instruction, in plain words.'),
      })
      .strict(),
  sideEffect: 'write',
  publishes: true,
  concurrencySafe: false,
  executor: 'workflow',
});
