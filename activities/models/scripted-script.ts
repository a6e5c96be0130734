import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { failure } from '../../workflows/contracts';
import { parse as parseYaml, YAMLError } from 'yaml';
import { scriptedPathProblem } from '../../agents/model-choice';
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
    /** The system prompt the run sends holds this text (a repository's instructions, say). */
    systemIncludes: z.string().min(1).optional(),
  })
  .strict()
  .refine((condition) => Object.keys(condition).length > 0, {
    message: 'a `when` needs lastUserIncludes, lastToolResultIncludes, hasTool or systemIncludes',
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

/** Where scripts may be read from: named directories, absolute or relative to `baseDir`. */
export interface ScriptLocations {
  baseDir: string;
  /** name -> directory; `scripted:<name>/<path>` reads `<path>` inside that directory. */
  dirs: Readonly<Record<string, string>>;
}

/** A script larger than this is no script (and is never read whole). */
const MAX_SCRIPT_BYTES = 1024 * 1024;

/**
 * The real path of `scripted:<name>/<path>`: a regular file inside the scripted directory
 * called `<name>`, by a relative path without `..`, and still inside once symbolic links are
 * resolved. (The directive check refuses the same shapes earlier; this is the wall for every
 * other way a model string arrives.) A refusal names the path, never what is there.
 */
export async function resolveScriptPath(path: string, locations: ScriptLocations): Promise<string> {
  const names = Object.keys(locations.dirs);
  const refuse = (why: string) =>
    failure(
      'model_script_refused',
      `Scripted model ${path}: ${why}. A script is named <directory>/<file> after one of the scripted directories ` +
        `(${names.join(', ') || 'none configured'}; models.scriptedDirs)`,
    );
  const problem = scriptedPathProblem(path);
  if (problem) throw refuse(problem);
  // `./examples//a.yaml` is `examples/a.yaml`, as the allowlist spells it (`canonicalModel`).
  const [name = '', ...rest] = path.split('/').filter((segment) => segment !== '' && segment !== '.');
  const inner = rest.join('/');
  if (!Object.hasOwn(locations.dirs, name) || inner === '') throw refuse('it is not inside a scripted directory');
  const root = resolve(locations.baseDir, locations.dirs[name]);
  const candidate = resolve(root, inner);
  if (!isInside(candidate, root)) throw refuse('it is not inside a scripted directory');
  let real: string;
  let realRoot: string;
  try {
    [realRoot, real] = [await realpath(root), await realpath(candidate)];
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw invalidScript(candidate, code === 'ENOENT' || code === 'ENOTDIR' ? 'not found' : `cannot be read (${code ?? 'error'})`);
  }
  if (!isInside(real, realRoot)) throw refuse('a symbolic link leads outside its scripted directory');
  return real;
}

function isInside(file: string, root: string): boolean {
  const rel = relative(root, file);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

function invalidScript(file: string, problem: string): ApplicationFailure {
  return failure('model_script_invalid', `Scripted model file ${file}: ${problem}`);
}

/**
 * Reads and validates a script at a path `resolveScriptPath` returned. Every problem is
 * non-retryable and names the file, since the file will not fix itself between attempts;
 * none quotes the file (a parse error gives a line and column, a schema error a key path).
 */
export async function loadScript(file: string): Promise<ScriptTurn[]> {
  const invalid = (problem: string) => invalidScript(file, problem);
  let text: string;
  try {
    const info = await stat(file);
    if (!info.isFile()) throw invalid('not a regular file');
    if (info.size > MAX_SCRIPT_BYTES) throw invalid(`larger than ${MAX_SCRIPT_BYTES} bytes`);
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (error instanceof ApplicationFailure) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw invalid(code === 'ENOENT' ? 'not found' : `cannot be read (${code ?? 'error'})`);
  }
  const json = file.endsWith('.json');
  let data: unknown;
  try {
    data = json ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw invalid(`is not valid ${json ? 'JSON' : 'YAML'}${json ? '' : whereInYaml(error)}`);
  }
  const parsed = ScriptSchema.safeParse(data);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => {
      // Zod names unknown keys, which are the file's own words.
      const message = issue.code === 'unrecognized_keys' ? 'unknown key (docs/models.md lists the keys)' : issue.message;
      return `${issue.path.join('.') || '(top level)'}: ${message}`;
    });
    throw invalid(`not a valid script: ${issues.join('; ')}`);
  }
  return parsed.data;
}

/** Where a YAML parser error is, without the excerpt of the file the parser adds to its message. */
function whereInYaml(error: unknown): string {
  if (!(error instanceof YAMLError)) return '';
  const at = error.linePos?.[0];
  return ` (${error.code}${at ? ` at line ${at.line}, column ${at.col}` : ''})`;
}
