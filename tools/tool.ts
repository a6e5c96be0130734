import type { ZodType } from 'zod';
import { z } from './lazy-zod';

/** Whether a tool only looks (`read`) or can change something (`write`), locally or outside. */
export type SideEffect = 'read' | 'write';

/**
 * Who executes a call: an activity (every effect on the world), the workflow itself
 * (results, waits, signals to another unit), or a child run (`task`).
 */
export type ExecutorKind = 'activity' | 'workflow' | 'child-run';

/**
 * One tool as the run loop sees it. The schema is the contract the model is shown and the
 * input is validated against; executing it is the executor's business, not this module's.
 */
export interface ToolSpec<Input extends ZodType = ZodType> {
  /** snake_case name the model calls. */
  readonly name: string;
  /** One paragraph the model reads to decide when to call it. */
  readonly description: string;
  readonly input: Input;
  readonly sideEffect: SideEffect;
  /**
   * True when the effect is visible outside the run's own sandbox and status card
   * (GitHub, another unit, a posted file). Such calls carry an at-most-once effect key,
   * and an agent holding one is not read-only.
   */
  readonly publishes: boolean;
  /** Calls of one turn marked safe run together; the rest run in order. */
  readonly concurrencySafe: boolean;
  readonly executor: ExecutorKind;
}

/**
 * Declares a tool; each file's literal is type-checked and keeps its name as a literal type (the
 * registry's `ToolName` union is built from them). The input schema is built on first use, not
 * when the module loads: every cached workflow evaluates the bundle's modules for itself
 * (reuseV8Context gives each its own module cache), and a thread, which never reads a tool's
 * schema, would otherwise hold all 31 (docs/performance.md).
 */
export function defineTool<const Name extends string, Input extends ZodType>(
  spec: Omit<ToolSpec<Input>, 'input'> & { readonly name: Name; readonly input: () => Input },
): ToolSpec<Input> & { readonly name: Name } {
  const { input: build, ...rest } = spec;
  let input: Input | undefined;
  return {
    ...rest,
    get input() {
      return (input ??= build());
    },
  };
}

/** What a model provider needs for one tool: name, description and a JSON schema of the input. */
export interface ModelToolSchema {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** Renders a tool's zod input as a JSON schema (draft 2020-12, input side: defaults are optional). */
export function toolJsonSchema(tool: ToolSpec): ModelToolSchema {
  const { $schema: _ignored, ...inputSchema } = z.toJSONSchema(tool.input, { io: 'input' }) as Record<string, unknown>;
  return { name: tool.name, description: tool.description, inputSchema };
}

/** A tool call whose input failed validation: returned to the model as data, never thrown. */
export interface ToolInputProblem {
  ok: false;
  code: 'tool_unknown' | 'tool_not_in_toolset' | 'tool_input_invalid';
  message: string;
}

export type ToolInputResult<T = unknown> = { ok: true; value: T } | ToolInputProblem;

/** Validates a call's input against the tool's schema; problems are listed by field. */
export function parseToolInput(tool: ToolSpec, input: unknown): ToolInputResult {
  const parsed = tool.input.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data };
  const details = parsed.error.issues.map((issue) => `${issue.path.map(String).join('.') || '(input)'}: ${issue.message}`);
  return { ok: false, code: 'tool_input_invalid', message: `${tool.name}: ${details.join('; ')}` };
}
