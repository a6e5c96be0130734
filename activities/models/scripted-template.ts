import type { ChatMessage, ToolResult } from '../../workflows/contracts/model';

/** `{{name}}` or `{{name:argument}}`. */
export const TEMPLATE_PATTERN = /\{\{\s*([A-Za-z]+(?::[^}]*)?)\s*\}\}/g;

const PLACEHOLDERS = new Set(['lastUser', 'lastToolResult', 'turn', 'runId']);

export function isKnownPlaceholder(expression: string): boolean {
  const [name = '', argument] = splitExpression(expression);
  if (argument !== undefined) return name === 'lastToolResult' && argument !== '';
  return PLACEHOLDERS.has(name);
}

/** What a script can see of the conversation so far. */
export interface ScriptView {
  lastUser: string;
  /** All tool results, oldest first. */
  toolResults: ToolResult[];
  turn: number;
  runId: string;
  /** The tools the run offers this turn, so a script can adapt to the agent it runs under. */
  tools: string[];
  /** The system prompt of the request. */
  system?: string;
}

export function viewConversation(messages: ChatMessage[], turn: number, runId: string, tools: string[] = [], system?: string): ScriptView {
  let lastUser = '';
  const toolResults: ToolResult[] = [];
  for (const message of messages) {
    if (message.role === 'user') lastUser = message.text;
    else if (message.role === 'tool') toolResults.push(...message.results);
  }
  return { lastUser, toolResults, turn, runId, tools, ...(system !== undefined ? { system } : {}) };
}

/** The latest tool result's content, optionally the latest from one tool; empty when none. */
export function lastToolResult(view: ScriptView, toolName?: string): string {
  for (let index = view.toolResults.length - 1; index >= 0; index -= 1) {
    const result = view.toolResults[index];
    if (result && (toolName === undefined || result.name === toolName)) return result.content;
  }
  return '';
}

export function renderTemplate(text: string, view: ScriptView): string {
  return text.replace(TEMPLATE_PATTERN, (_match, expression: string) => {
    const [name, argument] = splitExpression(expression);
    if (name === 'lastUser') return view.lastUser;
    if (name === 'lastToolResult') return lastToolResult(view, argument);
    if (name === 'turn') return String(view.turn);
    if (name === 'runId') return view.runId;
    return `{{${expression}}}`;
  });
}

/** Renders every string inside a tool call's input, so a script can pass on what it saw. */
export function renderValue(value: unknown, view: ScriptView): unknown {
  if (typeof value === 'string') return renderTemplate(value, view);
  if (Array.isArray(value)) return value.map((item) => renderValue(item, view));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, renderValue(item, view)]));
  }
  return value;
}

function splitExpression(expression: string): [string, string | undefined] {
  const colon = expression.indexOf(':');
  return colon < 0 ? [expression.trim(), undefined] : [expression.slice(0, colon).trim(), expression.slice(colon + 1).trim()];
}
