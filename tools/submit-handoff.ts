import { z } from './lazy-zod';
import { defineTool } from './tool';

export const submitHandoffTool = defineTool({
  name: 'submit_handoff',
  description:
    'When you cannot finish (the budget is nearly spent, a blocker you cannot clear, a decision only a person can make): ' +
    "hand the work off with what is done, what is left, why, and what it needs. In a ship unit's coding run, the unit " +
    'commits and pushes what the branch holds, posts the handoff on the pull request and in the conversation, and settles ' +
    '`handed_off` (never "ready"); with a question it waits for a person\'s answer instead, and the next round starts from ' +
    "your handoff. In any other run it is only recorded in this run's record: say it in your answer too. Call it once, " +
    'then end your turn.',
  input: () =>
    z
      .object({
        done: z
          .string()
          .min(1)
          .max(4000)
          .describe('What is done: the changes made (committed or left in the checkout) and what was verified.'),
        left: z.string().min(1).max(4000).describe('What is left to do.'),
        reason: z
          .enum(['budget', 'blocker', 'decision'])
          .describe(
            'budget: the time budget is nearly spent; blocker: something you cannot clear; decision: a choice only a person can make.',
          ),
        why: z.string().min(1).max(2000).describe('Why you stop here, in a sentence or two.'),
        needs: z.string().min(1).max(2000).describe('What a person must do or decide for the work to go on.'),
        question: z
          .string()
          .min(1)
          .max(1000)
          .optional()
          .describe('A question for a person. With it the unit waits for the answer instead of settling; omit it to hand the work off.'),
      })
      .strict(),
  sideEffect: 'write',
  publishes: true,
  concurrencySafe: false,
  executor: 'workflow',
});
