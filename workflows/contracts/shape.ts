/**
 * The shapes of message inputs, written by hand: each signal and update input is checked whole
 * against its shape before a workflow touches its state, and a problem names the field
 * (`requester.surface must be one of …`). Plain data and a small checker, not zod: workflow
 * modules are evaluated for every new workflow and must not load zod (docs/performance.md).
 * Fields a shape does not name are ignored, so a client that sends a newer field still works.
 */
export type Shape =
  /** `max`: at most this many characters (a steer joins a model's conversation whole). */
  | { kind: 'string'; nonBlank?: boolean; max?: number }
  | { kind: 'integer'; min?: number }
  /** Any finite number (money), at least `min`. */
  | { kind: 'number'; min?: number }
  | { kind: 'boolean' }
  | { kind: 'literal'; values: readonly string[] }
  | { kind: 'list'; item: Shape }
  | { kind: 'object'; fields: Fields }
  /** An object whose `tag` field picks which fields it has (a discriminated union). */
  | { kind: 'variants'; tag: string; variants: Record<string, Fields> }
  | { kind: 'nullable'; inner: Shape };

/** A field that may be absent. */
export interface Optional {
  optional: Shape;
}

export type Fields = Record<string, Shape | Optional>;

export const text = (): Shape => ({ kind: 'string' });
/** A string with something other than white space in it (and at most `max` characters). */
export const nonBlank = (max?: number): Shape => ({ kind: 'string', nonBlank: true, ...(max !== undefined ? { max } : {}) });
export const integer = (min?: number): Shape => ({ kind: 'integer', ...(min !== undefined ? { min } : {}) });
/** A finite number (an amount of money), at least `min`. */
export const decimal = (min?: number): Shape => ({ kind: 'number', ...(min !== undefined ? { min } : {}) });
export const boolean = (): Shape => ({ kind: 'boolean' });
export const oneOf = (values: readonly string[]): Shape => ({ kind: 'literal', values });
export const listOf = (item: Shape): Shape => ({ kind: 'list', item });
export const object = (fields: Fields): Shape => ({ kind: 'object', fields });
export const variants = (tag: string, byTag: Record<string, Fields>): Shape => ({ kind: 'variants', tag, variants: byTag });
export const nullable = (inner: Shape): Shape => ({ kind: 'nullable', inner });
export const optional = (shape: Shape): Optional => ({ optional: shape });

export function isOptional(field: Shape | Optional): field is Optional {
  return 'optional' in field;
}

/** How a check reads shapes: `bounded: false` leaves lengths unchecked (histories from before the bound). */
export interface CheckOptions {
  bounded?: boolean;
}

/** The first problem with `value` as `shape`, in words that name the field at `path`; undefined when it fits. */
export function problemWith(shape: Shape, value: unknown, path = 'the input', options: CheckOptions = {}): string | undefined {
  const named = path === 'the input' ? path : `\`${path}\``;
  const got = ` (got ${describe(value)})`;
  switch (shape.kind) {
    case 'string':
      if (typeof value !== 'string') return `${named} must be a string${got}`;
      if (shape.nonBlank && !value.trim()) return `${named} must not be empty`;
      if (shape.max !== undefined && options.bounded !== false && value.length > shape.max)
        return `${named} is ${value.length} characters long, and at most ${shape.max} are taken: say it in fewer words`;
      return undefined;
    case 'integer':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return `${named} must be a whole number${got}`;
      if (shape.min !== undefined && value < shape.min) return `${named} must be at least ${shape.min}${got}`;
      return undefined;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return `${named} must be a number${got}`;
      if (shape.min !== undefined && value < shape.min) return `${named} must be at least ${shape.min}${got}`;
      return undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `${named} must be true or false${got}`;
    case 'literal':
      return typeof value === 'string' && shape.values.includes(value)
        ? undefined
        : `${named} must be one of ${shape.values.join(', ')}${got}`;
    case 'list': {
      if (!Array.isArray(value)) return `${named} must be a list${got}`;
      for (const [index, item] of value.entries()) {
        const problem = problemWith(shape.item, item, `${bare(path)}[${index}]`, options);
        if (problem) return problem;
      }
      return undefined;
    }
    case 'nullable':
      return value === null ? undefined : problemWith(shape.inner, value, path, options);
    case 'object':
      if (!isRecord(value)) return `${named} must be an object${got}`;
      return fieldsProblem(shape.fields, value, path, options);
    case 'variants': {
      if (!isRecord(value)) return `${named} must be an object${got}`;
      const tag = value[shape.tag];
      const fields = typeof tag === 'string' && Object.hasOwn(shape.variants, tag) ? shape.variants[tag] : undefined;
      if (!fields) return `\`${join(path, shape.tag)}\` must be one of ${Object.keys(shape.variants).join(', ')} (got ${describe(tag)})`;
      return fieldsProblem(fields, value, path, options);
    }
  }
}

/**
 * A message's whole input as Temporal delivers it (its argument list): one argument that fits
 * `shape`, or none at all when `absentOk` (`stop` and `merge` may be sent with no input).
 */
export function inputProblem(
  shape: Shape,
  args: readonly unknown[],
  options: { absentOk?: boolean } & CheckOptions = {},
): string | undefined {
  if (args.length > 1) return `the message takes one input (got ${args.length})`;
  const [value] = args;
  if (options.absentOk && (value === undefined || value === null)) return undefined;
  if (value === undefined) return 'the input is missing';
  return problemWith(shape, value, 'the input', options);
}

function fieldsProblem(fields: Fields, value: Record<string, unknown>, path: string, options: CheckOptions): string | undefined {
  for (const [name, field] of Object.entries(fields)) {
    const present = Object.hasOwn(value, name) && value[name] !== undefined;
    if (!present) {
      if (isOptional(field)) continue;
      return `\`${join(path, name)}\` is missing`;
    }
    const problem = problemWith(isOptional(field) ? field.optional : field, value[name], join(path, name), options);
    if (problem) return problem;
  }
  return undefined;
}

/** A plain JSON object (not a list, not bytes from a binary payload); checked by tag, so it holds across the workflow sandbox's realm. */
function isRecord(value: unknown): value is Record<string, unknown> {
  return Object.prototype.toString.call(value) === '[object Object]';
}

function bare(path: string): string {
  return path === 'the input' ? 'input' : path;
}

function join(path: string, name: string): string {
  return path === 'the input' ? name : `${path}.${name}`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (ArrayBuffer.isView(value)) return 'bytes';
  // undecodable-payload.ts: what a payload the workflow could not decode arrives as (known by its tag).
  if (Object.prototype.toString.call(value) === '[object UndecodablePayload]') {
    const { encoding, reason } = value as { encoding: string; reason: string };
    return `a payload that could not be decoded: encoding ${encoding}, ${reason}`;
  }
  if (typeof value === 'string') return value.length > 40 ? `"${value.slice(0, 40)}…"` : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value === 'object' ? 'an object' : typeof value;
}
