import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { TEMPLATE_PATTERN, isKnownPlaceholder } from './scripted-template';

const TemplatedText = z
  .string()
  .refine((text) => [...text.matchAll(TEMPLATE_PATTERN)].every((match) => isKnownPlaceholder(match[1] ?? '')), {
    message: 'unknown placeholder: use {{lastUser}}, {{lastToolResult}}, {{lastToolResult:<tool name>}}, {{turn}} or {{runId}}',
  });

const ScriptedToolCall = z.object({ name: z.string().min(1), input: z.unknown().default({}), id: z.string().min(1).optional() }).strict();

const TurnBody = {
  text: TemplatedText.optional(),
  toolCalls: z.array(ScriptedToolCall).optional(),
  /** Reported instead of the estimate, e.g. to drive a run into its token cap. */
  usage: z
    .object({
      inputTokens: z.number().int().nonnegative(),
      outputTokens: z.number().int().nonnegative(),
      cacheReadTokens: z.number().int().nonnegative().optional(),
      cacheWriteTokens: z.number().int().nonnegative().optional(),
    })
    .strict()
    .optional(),
  /** A slow model: waits this long (heartbeating, cancellable) before answering. */
  delayMs: z.number().int().nonnegative().max(3_600_000).optional(),
};

const Condition = z
  .object({
    lastUserIncludes: z.string().min(1).optional(),
    lastToolResultIncludes: z.string().min(1).optional(),
    /** The run offers this tool (a script that adapts to the agent it runs under). */
    hasTool: z.string().min(1).optional(),
  })
  .strict()
  .refine((condition) => Object.keys(condition).length > 0, {
    message: 'a `when` needs lastUserIncludes, lastToolResultIncludes or hasTool',
  });

const Alternative = z.object({ when: Condition.optional(), ...TurnBody }).strict();

/**
 * A turn is either played as written, or holds `alternatives`: the first whose `when` holds
 * is played, else the one without `when` (the fallback, which is required).
 */
const Turn = z
  .object({ ...TurnBody, alternatives: z.array(Alternative).min(1).optional() })
  .strict()
  .superRefine((turn, context) => {
    if (!turn.alternatives) return;
    if (Object.keys(TurnBody).some((key) => turn[key as keyof typeof TurnBody] !== undefined)) {
      context.addIssue({ code: 'custom', message: 'a turn with alternatives keeps its text and tool calls inside them' });
    }
    if (turn.alternatives.every((alternative) => alternative.when)) {
      context.addIssue({
        code: 'custom',
        path: ['alternatives'],
        message: 'a turn with alternatives needs a fallback: one alternative without `when`',
      });
    }
  });

/** A scripted model file: a list of turns, or `{ turns: [...] }`. */
export const ScriptSchema = z.preprocess(
  (data) => (typeof data === 'object' && data !== null && !Array.isArray(data) && 'turns' in data ? data.turns : data),
  z.array(Turn),
);

export type ScriptTurn = z.infer<typeof Turn>;
export type ScriptAlternative = z.infer<typeof Alternative>;
export type ScriptCondition = z.infer<typeof Condition>;

/** The scripted file's absolute path: relative paths are under the configured base directory. */
export function resolveScriptPath(path: string, baseDir: string): string {
  return isAbsolute(path) ? path : resolve(baseDir, path);
}

/**
 * Reads and validates a script. Every problem is non-retryable and names the file, since the
 * file will not fix itself between attempts.
 */
export async function loadScript(file: string): Promise<ScriptTurn[]> {
  const invalid = (problem: string) => ApplicationFailure.nonRetryable(`Scripted model file ${file}: ${problem}`, 'model_script_invalid');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw invalid(code === 'ENOENT' ? 'not found' : `cannot be read (${(error as Error).message})`);
  }
  let data: unknown;
  try {
    data = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw invalid(`is not valid ${file.endsWith('.json') ? 'JSON' : 'YAML'}: ${(error as Error).message}`);
  }
  const parsed = ScriptSchema.safeParse(data);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(top level)'}: ${issue.message}`);
    throw invalid(`not a valid script: ${issues.join('; ')}`);
  }
  return parsed.data;
}
