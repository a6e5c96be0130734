// The names of MCP tools in a tool list, below the definition's schema (which checks its entries
// with them) and agents/mcp.ts (which decides attachments from definitions), so neither imports
// the other for them.

/** A tool list entry naming an MCP server's tool, or all of them: `mcp__<server>__<tool>`, `mcp__<server>__*`. */
export const MCP_TOOL_ENTRY = /^mcp__([a-z][a-z0-9-]{0,31})__([A-Za-z0-9_.*-]{1,64})$/;
/** A server name: lowercase words joined by hyphens (never `__`, which separates the parts of a tool's name). */
export const MCP_SERVER_NAME = /^[a-z][a-z0-9-]{0,31}$/;
/** The prefix of every MCP tool's name as the model sees it. */
export const MCP_PREFIX = 'mcp__';

export function isMcpEntry(name: string): boolean {
  return MCP_TOOL_ENTRY.test(name);
}

export function isMcpToolName(name: string): boolean {
  return name.startsWith(MCP_PREFIX);
}
