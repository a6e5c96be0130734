import { z } from './lazy-zod';
import { defineTool } from './tool';

export const useSkillTool = defineTool({
  name: 'use_skill',
  description: "Load one skill's full instructions into the conversation by name (from list_skills).",
  input: () =>
    z
      .object({
        name: z.string().min(1).describe("The skill's name exactly as list_skills returned it."),
      })
      .strict(),
  sideEffect: 'read',
  publishes: false,
  concurrencySafe: true,
  executor: 'activity',
});
