import { inputProblem, isOptional, type Fields, type MessageInput, type Shape } from '../../workflows/contracts';

/** One malformed input for a message: its argument list (empty: no input at all) and what was changed. */
export interface MalformedCase {
  label: string;
  args: unknown[];
  /** What the contract says is wrong with it (the workflow names the same problem). */
  problem: string;
}

/** A seeded PRNG (mulberry32), so a failing fuzz run can be repeated with its seed. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * Malformed inputs for `entry` built from a well-formed `valid` one: the whole input wrong
 * (none, null, a number, a string, a list, two inputs), then one field at a time, at every
 * depth of the shape, missing or of the wrong type. Only inputs the contract itself refuses
 * are kept, so each is one the workflow must refuse or drop.
 */
export function malformedCases(entry: MessageInput, valid: Record<string, unknown>): MalformedCase[] {
  const candidates: Array<{ label: string; args: unknown[] }> = [
    { label: 'no input', args: [] },
    { label: 'null', args: [null] },
    { label: 'a number', args: [42] },
    { label: 'a string', args: ['stop it'] },
    { label: 'a list', args: [[valid]] },
    { label: 'two inputs', args: [valid, valid] },
  ];
  for (const [path, value] of fieldMutations(entry.shape, valid, [])) candidates.push({ label: path, args: [value] });
  const cases: MalformedCase[] = [];
  for (const candidate of candidates) {
    const problem = inputProblem(entry.shape, candidate.args, { absentOk: entry.absentOk ?? false });
    if (problem) cases.push({ ...candidate, problem });
  }
  return cases;
}

/** `count` cases: the whole-input ones always, then a seeded sample of the field ones. */
export function sampleCases(cases: MalformedCase[], count: number, random: () => number): MalformedCase[] {
  const whole = cases.filter((entry) => !entry.label.includes('='));
  const fields = cases.filter((entry) => entry.label.includes('='));
  const picked = [...whole];
  while (picked.length < count && fields.length > 0) picked.push(fields.splice(Math.floor(random() * fields.length), 1)[0]);
  return picked;
}

/** Each field of `value` at every depth, removed or replaced by a value of the wrong type: [label, the whole input]. */
function* fieldMutations(shape: Shape, value: unknown, path: string[]): Generator<[string, unknown]> {
  const fields = fieldsOf(shape, value);
  if (!fields || typeof value !== 'object' || value === null) return;
  const record = value as Record<string, unknown>;
  for (const [name, field] of Object.entries(fields)) {
    const inner = isOptional(field) ? field.optional : field;
    const here = [...path, name].join('.');
    if (!isOptional(field) && name in record) {
      const { [name]: _removed, ...rest } = record;
      yield [`${here}=(missing)`, rest];
    }
    for (const wrong of wrongValues(inner)) yield [`${here}=${shown(wrong)}`, { ...record, [name]: wrong }];
    if (record[name] !== undefined && typeof record[name] === 'object') {
      for (const [label, nested] of fieldMutations(inner, record[name], [...path, name])) yield [label, { ...record, [name]: nested }];
    }
  }
}

/** A value in a case's label: a long string by its length. */
function shown(value: unknown): string {
  return typeof value === 'string' && value.length > 40 ? `"${value[0]}"×${value.length}` : JSON.stringify(value);
}

function fieldsOf(shape: Shape, value: unknown): Fields | undefined {
  if (shape.kind === 'object') return shape.fields;
  if (shape.kind === 'variants' && typeof value === 'object' && value !== null) {
    const tag = (value as Record<string, unknown>)[shape.tag];
    return typeof tag === 'string' ? shape.variants[tag] : undefined;
  }
  return shape.kind === 'nullable' ? fieldsOf(shape.inner, value) : undefined;
}

function wrongValues(shape: Shape): unknown[] {
  switch (shape.kind) {
    case 'string':
      return [
        ...(shape.nonBlank ? [42, null, '   ', { text: 'x' }] : [42, null, ['x']]),
        ...(shape.max !== undefined ? ['x'.repeat(shape.max + 1)] : []),
      ];
    case 'integer':
      return ['7', 1.5, null, ...(shape.min !== undefined ? [shape.min - 1] : [])];
    case 'number':
      return ['7', null, ...(shape.min !== undefined ? [shape.min - 1] : [])];
    case 'boolean':
      return ['yes', 1, null];
    case 'literal':
      return ['not-one-of-them', 3, null];
    case 'list':
      return ['x', [42, { x: 1 }], null];
    case 'object':
      return ['x', [], null];
    case 'variants':
      return ['x', [], { [shape.tag]: 'not-a-kind' }, {}];
    case 'nullable':
      return [42, ['x']];
  }
}
