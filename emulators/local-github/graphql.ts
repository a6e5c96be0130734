import { GraphQLSyntaxError, parseOperation, valueOf, type FieldNode, type OperationNode } from './graphql-parse';

/**
 * A small GraphQL executor for the local GitHub's `/api/graphql`: a schema of named object types
 * whose fields resolve from the in-memory state, a validation pass before anything runs (an
 * unknown field, a missing or stray selection, an unknown argument), and GitHub's answer shapes —
 * HTTP 200 with `data` and `errors`, a field that fails set to null with its `type` (`NOT_FOUND`,
 * `FORBIDDEN`, …), `path` and `locations`.
 */

/** One field: the type it returns (a type of the schema, or a scalar name), its arguments and its resolver. */
export interface FieldDef<C> {
  type: string;
  list?: boolean;
  args?: readonly string[];
  // Resolvers read the parent object their own type resolved to.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  resolve(parent: any, args: Record<string, any>, ctx: C): unknown;
}

/** Object types by name; `Query` and `Mutation` are the roots. */
export type Schema<C> = Record<string, Record<string, FieldDef<C>>>;

/** A field's failure as GitHub reports it: the field is null and `errors` says why. */
export class FieldError extends Error {
  constructor(
    readonly type: 'NOT_FOUND' | 'FORBIDDEN' | 'UNPROCESSABLE' | 'MISSING_PAGINATION_BOUNDARIES' | 'EXCESSIVE_PAGINATION',
    message: string,
  ) {
    super(message);
  }
}

interface GraphQLError {
  message: string;
  type?: string;
  path?: Array<string | number>;
  locations?: Array<{ line: number; column: number }>;
  extensions?: Record<string, unknown>;
}

const SCALARS = new Set(['String', 'Int', 'Boolean', 'ID', 'DateTime', 'URI']);

export function executeGraphQL<C>(
  schema: Schema<C>,
  request: { query?: unknown; variables?: unknown; operationName?: unknown },
  ctx: C,
): { data?: Record<string, unknown> | null; errors?: GraphQLError[] } {
  if (typeof request.query !== 'string' || !request.query.trim())
    return { errors: [{ message: 'A query attribute must be specified and must be a string.' }] };
  let operation: OperationNode;
  try {
    operation = parseOperation(request.query, typeof request.operationName === 'string' ? request.operationName : undefined);
  } catch (error) {
    if (!(error instanceof GraphQLSyntaxError)) throw error;
    return { errors: [{ message: error.message, locations: [error.loc] }] };
  }
  const root = operation.operation === 'mutation' ? 'Mutation' : 'Query';
  const problems = validate(schema, root, operation.selections, [operation.operation]);
  if (problems.length > 0) return { errors: problems };
  const variables = request.variables && typeof request.variables === 'object' ? (request.variables as Record<string, unknown>) : {};
  const errors: GraphQLError[] = [];
  const data = run(schema, root, {}, operation.selections, [], { ctx, variables, defaults: operation.defaults, errors });
  return errors.length > 0 ? { data, errors } : { data };
}

function validate<C>(schema: Schema<C>, typeName: string, selections: FieldNode[], path: string[]): GraphQLError[] {
  const fields = schema[typeName] ?? {};
  const problems: GraphQLError[] = [];
  for (const field of selections) {
    const at = [...path, field.alias ?? field.name];
    if (field.name === '__typename') continue;
    const def = fields[field.name];
    if (!def) {
      problems.push({
        path: at,
        extensions: { code: 'undefinedField', typeName, fieldName: field.name },
        locations: [field.loc],
        message: `Field '${field.name}' doesn't exist on type '${typeName}'`,
      });
      continue;
    }
    for (const arg of Object.keys(field.args))
      if (!def.args?.includes(arg))
        problems.push({
          path: at,
          extensions: { code: 'argumentNotAccepted', name: field.name, typeName: 'Field', argumentName: arg },
          locations: [field.loc],
          message: `Field '${field.name}' doesn't accept argument '${arg}'`,
        });
    const scalar = SCALARS.has(def.type);
    if (scalar && field.selections)
      problems.push({
        path: at,
        extensions: { code: 'selectionMismatch', nodeName: `field '${field.name}'`, typeName: def.type },
        locations: [field.loc],
        message: `Selections can't be made on scalars (field '${field.name}' returns ${def.type} but has selections [${field.selections.map((s) => s.name).join(', ')}])`,
      });
    else if (!scalar && !field.selections)
      problems.push({
        path: at,
        extensions: { code: 'selectionMismatch', nodeName: `field '${field.name}'`, typeName: def.type },
        locations: [field.loc],
        message: `Field must have selections (field '${field.name}' returns ${def.type} but has no selections. Did you mean '${field.name} { ... }'?)`,
      });
    else if (field.selections) problems.push(...validate(schema, def.type, field.selections, at));
  }
  return problems;
}

interface Run<C> {
  ctx: C;
  variables: Record<string, unknown>;
  defaults: OperationNode['defaults'];
  errors: GraphQLError[];
}

function run<C>(
  schema: Schema<C>,
  typeName: string,
  parent: unknown,
  selections: FieldNode[],
  path: Array<string | number>,
  state: Run<C>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of selections) {
    const key = field.alias ?? field.name;
    const at = [...path, key];
    if (field.name === '__typename') {
      out[key] = typeName;
      continue;
    }
    const def = schema[typeName][field.name];
    const args = Object.fromEntries(
      Object.entries(field.args).map(([name, node]) => [name, valueOf(node, state.variables, state.defaults)]),
    );
    let value: unknown;
    try {
      value = def.resolve(parent, args, state.ctx);
    } catch (error) {
      if (!(error instanceof FieldError)) throw error;
      state.errors.push({ type: error.type, path: at, locations: [field.loc], message: error.message });
      out[key] = null;
      continue;
    }
    out[key] = shape(schema, def, value, field, at, state);
  }
  return out;
}

function shape<C>(
  schema: Schema<C>,
  def: FieldDef<C>,
  value: unknown,
  field: FieldNode,
  at: Array<string | number>,
  state: Run<C>,
): unknown {
  if (value === undefined || value === null) return null;
  if (SCALARS.has(def.type)) return value;
  if (def.list)
    return (value as unknown[]).map((item, index) =>
      item === null ? null : run(schema, def.type, item, field.selections!, [...at, index], state),
    );
  return run(schema, def.type, value, field.selections!, at, state);
}
