/**
 * The part of GraphQL's query language the local GitHub reads: one operation (`query` or
 * `mutation`, named or not, with variable definitions and their defaults), fields with aliases,
 * arguments and sub-selections, and every literal kind. Fragments and directives are refused by
 * name rather than half-understood. Errors carry GitHub's wording and the place they were found.
 */

export interface Location {
  line: number;
  column: number;
}

export type ValueNode =
  | { kind: 'variable'; name: string }
  | { kind: 'literal'; value: unknown }
  | { kind: 'list'; values: ValueNode[] }
  | { kind: 'object'; fields: Record<string, ValueNode> };

export interface FieldNode {
  alias?: string;
  name: string;
  args: Record<string, ValueNode>;
  selections?: FieldNode[];
  loc: Location;
}

export interface OperationNode {
  operation: 'query' | 'mutation';
  /** Defaults of the variables the operation declares. */
  defaults: Record<string, ValueNode | undefined>;
  selections: FieldNode[];
}

export class GraphQLSyntaxError extends Error {
  constructor(
    message: string,
    readonly loc: Location,
  ) {
    super(message);
  }
}

interface Token {
  kind: 'punct' | 'name' | 'int' | 'float' | 'string' | 'eof';
  value: string;
  loc: Location;
}

const PUNCTUATORS = ['...', '!', '$', '(', ')', ':', '=', '@', '[', ']', '{', '|', '}', '&'];

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let line = 1;
  let lineStart = 0;
  let i = 0;
  const at = (index: number): Location => ({ line, column: index - lineStart + 1 });
  while (i < source.length) {
    const ch = source[i];
    if (ch === '\n') {
      line += 1;
      lineStart = ++i;
    } else if (ch === ' ' || ch === '\t' || ch === ',' || ch === '\r' || ch === '\ufeff') i += 1;
    else if (ch === '#') while (i < source.length && source[i] !== '\n') i += 1;
    else if (ch === '"') {
      const start = i;
      let value = '';
      i += 1;
      while (i < source.length && source[i] !== '"') {
        if (source[i] === '\n') throw new GraphQLSyntaxError('Unterminated string', at(start));
        if (source[i] === '\\') {
          const escaped = source[i + 1];
          if (escaped === 'u') {
            value += String.fromCharCode(parseInt(source.slice(i + 2, i + 6), 16));
            i += 6;
            continue;
          }
          value += { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' }[escaped] ?? escaped;
          i += 2;
          continue;
        }
        value += source[i++];
      }
      if (i >= source.length) throw new GraphQLSyntaxError('Unterminated string', at(start));
      i += 1;
      tokens.push({ kind: 'string', value, loc: at(start) });
    } else if (/[_A-Za-z]/.test(ch)) {
      const start = i;
      while (i < source.length && /[_0-9A-Za-z]/.test(source[i])) i += 1;
      tokens.push({ kind: 'name', value: source.slice(start, i), loc: at(start) });
    } else if (/[-0-9]/.test(ch)) {
      const match = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(source.slice(i));
      if (!match) throw new GraphQLSyntaxError(`Parse error on "${ch}"`, at(i));
      tokens.push({ kind: match[1] || match[2] ? 'float' : 'int', value: match[0], loc: at(i) });
      i += match[0].length;
    } else {
      const punct = PUNCTUATORS.find((p) => source.startsWith(p, i));
      if (!punct) throw new GraphQLSyntaxError(`Parse error on "${ch}"`, at(i));
      tokens.push({ kind: 'punct', value: punct, loc: at(i) });
      i += punct.length;
    }
  }
  tokens.push({ kind: 'eof', value: '', loc: at(i) });
  return tokens;
}

/** Parses the document; `operationName` picks one operation when it holds several. */
export function parseOperation(source: string, operationName?: string): OperationNode {
  const tokens = tokenize(source);
  let pos = 0;
  const peek = () => tokens[pos];
  const next = () => tokens[pos++];
  const fail = (token: Token): never => {
    throw new GraphQLSyntaxError(
      token.kind === 'eof' ? 'Parse error on end of input' : `Parse error on "${token.value}" (${token.kind.toUpperCase()})`,
      token.loc,
    );
  };
  const expect = (value: string): Token => (peek().kind === 'punct' && peek().value === value ? next() : fail(peek()));
  const name = (): string => (peek().kind === 'name' ? next().value : fail(peek()));

  const value = (constant: boolean): ValueNode => {
    const token = next();
    if (token.kind === 'punct' && token.value === '$' && !constant) return { kind: 'variable', name: name() };
    if (token.kind === 'int') return { kind: 'literal', value: Number.parseInt(token.value, 10) };
    if (token.kind === 'float') return { kind: 'literal', value: Number.parseFloat(token.value) };
    if (token.kind === 'string') return { kind: 'literal', value: token.value };
    if (token.kind === 'name')
      return {
        kind: 'literal',
        value: token.value === 'true' ? true : token.value === 'false' ? false : token.value === 'null' ? null : token.value,
      };
    if (token.kind === 'punct' && token.value === '[') {
      const values: ValueNode[] = [];
      while (!(peek().kind === 'punct' && peek().value === ']')) values.push(value(constant));
      next();
      return { kind: 'list', values };
    }
    if (token.kind === 'punct' && token.value === '{') {
      const fields: Record<string, ValueNode> = {};
      while (!(peek().kind === 'punct' && peek().value === '}')) {
        const key = name();
        expect(':');
        fields[key] = value(constant);
      }
      next();
      return { kind: 'object', fields };
    }
    return fail(token);
  };

  const selectionSet = (): FieldNode[] => {
    expect('{');
    const fields: FieldNode[] = [];
    do {
      const token = peek();
      if (token.kind === 'punct' && token.value === '...')
        throw new GraphQLSyntaxError('Fragments are not supported by the local GitHub', token.loc);
      if (token.kind === 'punct' && token.value === '@')
        throw new GraphQLSyntaxError('Directives are not supported by the local GitHub', token.loc);
      const loc = token.loc;
      let fieldName = name();
      let alias: string | undefined;
      if (peek().kind === 'punct' && peek().value === ':') {
        next();
        alias = fieldName;
        fieldName = name();
      }
      const args: Record<string, ValueNode> = {};
      if (peek().kind === 'punct' && peek().value === '(') {
        next();
        while (!(peek().kind === 'punct' && peek().value === ')')) {
          const key = name();
          expect(':');
          args[key] = value(false);
        }
        next();
      }
      if (peek().kind === 'punct' && peek().value === '@')
        throw new GraphQLSyntaxError('Directives are not supported by the local GitHub', peek().loc);
      const selections = peek().kind === 'punct' && peek().value === '{' ? selectionSet() : undefined;
      fields.push({ ...(alias ? { alias } : {}), name: fieldName, args, ...(selections ? { selections } : {}), loc });
    } while (!(peek().kind === 'punct' && peek().value === '}'));
    next();
    return fields;
  };

  const typeRef = (): void => {
    if (peek().kind === 'punct' && peek().value === '[') {
      next();
      typeRef();
      expect(']');
    } else name();
    if (peek().kind === 'punct' && peek().value === '!') next();
  };

  const operations: Array<OperationNode & { name?: string }> = [];
  while (peek().kind !== 'eof') {
    const token = peek();
    if (token.kind === 'punct' && token.value === '{') {
      operations.push({ operation: 'query', defaults: {}, selections: selectionSet() });
      continue;
    }
    if (token.kind === 'name' && token.value === 'fragment')
      throw new GraphQLSyntaxError('Fragments are not supported by the local GitHub', token.loc);
    if (token.kind !== 'name' || (token.value !== 'query' && token.value !== 'mutation')) fail(token);
    next();
    const opName = peek().kind === 'name' ? next().value : undefined;
    const defaults: Record<string, ValueNode | undefined> = {};
    if (peek().kind === 'punct' && peek().value === '(') {
      next();
      while (!(peek().kind === 'punct' && peek().value === ')')) {
        expect('$');
        const variable = name();
        expect(':');
        typeRef();
        defaults[variable] = peek().kind === 'punct' && peek().value === '=' ? (next(), value(true)) : undefined;
      }
      next();
    }
    operations.push({
      operation: token.value as 'query' | 'mutation',
      defaults,
      selections: selectionSet(),
      ...(opName ? { name: opName } : {}),
    });
  }
  if (operations.length === 0) fail(peek());
  if (operationName !== undefined) {
    const chosen = operations.find((operation) => operation.name === operationName);
    if (!chosen) throw new GraphQLSyntaxError(`No operation named "${operationName}"`, { line: 1, column: 1 });
    return chosen;
  }
  if (operations.length > 1)
    throw new GraphQLSyntaxError('An operation name is required when the document holds more than one', { line: 1, column: 1 });
  return operations[0];
}

/** A value node read with the request's variables (and the operation's defaults). */
export function valueOf(node: ValueNode, variables: Record<string, unknown>, defaults: OperationNode['defaults']): unknown {
  if (node.kind === 'literal') return node.value;
  if (node.kind === 'list') return node.values.map((entry) => valueOf(entry, variables, defaults));
  if (node.kind === 'object')
    return Object.fromEntries(Object.entries(node.fields).map(([key, entry]) => [key, valueOf(entry, variables, defaults)]));
  if (node.name in variables) return variables[node.name];
  const fallback = defaults[node.name];
  return fallback ? valueOf(fallback, variables, defaults) : undefined;
}
