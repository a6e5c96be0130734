/**
 * A chat message that asks for a plan: the word `plan` first (a repository may follow: `plan in
 * acme/app`), then the plan's YAML, as the CLI reads it from a file, fenced or not. Pure and
 * zod-free: the thread recognises one here and has it read by an activity (activities/plans/plan-document.ts).
 */
export type PlanAsk =
  | {
      /** The plan's YAML, fences taken off. */
      yaml: string;
      /** A repository named on the first line (`plan in owner/name`). */
      repo?: string;
    }
  /** `plan confirm`: start the plan an orchestrator or conductor run drafted here (its `plan_draft`). */
  | { confirm: true };

// `plan`, or `plan in owner/name`; the API's and MCP's `repo` field arrives as its directive in front (`in owner/name: plan`).
const FIRST_LINE = /^\s*(?:in\s+([\w.-]+\/[\w.-]+):?\s+)?plan\b(?:\s+(?:in|for|on)\s+([\w.-]+\/[\w.-]+))?[\s:]*$/i;

const CONFIRM = /^\s*plan\s+(confirm|start)\s*[.!]?\s*$/i;

/** The plan this message asks for, or undefined when it is not one (its first line is not `plan …`, or it names no units). */
export function planAsk(text: string): PlanAsk | undefined {
  if (CONFIRM.test(text)) return { confirm: true };
  const [first, ...rest] = text.replace(/\r\n/g, '\n').split('\n');
  const match = FIRST_LINE.exec(first ?? '');
  if (!match) return undefined;
  const yaml = rest
    .join('\n')
    .replace(/^\s*```[\w-]*\s*$/gm, '')
    .trim();
  if (!/^units\s*:/m.test(yaml)) return undefined;
  const repo = match[2] ?? match[1];
  return { yaml, ...(repo ? { repo } : {}) };
}
