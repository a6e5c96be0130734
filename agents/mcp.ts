import type { Requester } from './access';
import type { AgentDefinition } from './definition-schema';
import type { McpAdmission } from '../workflows/contracts/mcp';
import { MCP_PREFIX, MCP_TOOL_ENTRY } from './mcp-names';

export * from './mcp-names';

// MCP servers as tools, the pure half: which servers a run of an agent may use (the deployment's
// attachments, a custom agent's own `mcp__<server>__…` entries, and the admission's people rule),
// and the names the model sees. The worker's half (starting servers, calling tools) is in
// activities/mcp/; a run discovers its servers' tools once, at its start (workflows/run/mcp-tools.ts).

/** Tool names the providers accept: letters, digits, `_` and `-`, at most 64 (OpenAI's limit; Anthropic's is 128). */
const MODEL_TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** What the deployment's `mcp` section says that decisions need (no command, URL or variable names: those stay on the worker). */
export interface McpSetup {
  servers: Record<string, McpServerFacts>;
  /** agent or role id -> the servers attached to it, each with an optional allowlist of tool names (`*` globs). */
  agents: Record<string, McpAttachmentConfig[]>;
}

export interface McpServerFacts {
  transport: 'stdio' | 'http';
  description?: string;
  /** The only people whose runs may use it (absent: everyone the agent is admitted for). */
  people?: string[];
}

export interface McpAttachmentConfig {
  server: string;
  /** Tool names (with `*` globs) the agent may call; absent: every tool the server lists. */
  tools?: string[];
}

/**
 * The servers attached to a definition: the deployment's `mcp.agents.<id>` and the definition's
 * own `mcp__<server>__<tool>` entries, merged per server (an entry without an allowlist takes
 * every tool). In name order, so the tool list a run shows is the same for the same config.
 *
 * The seam for a repository's own attachments (`.switchboard.yml`, issue 25): pass them as `extra`.
 */
export function mcpAttachmentsFor(
  definition: Pick<AgentDefinition, 'id' | 'tools'>,
  setup: McpSetup | undefined,
  extra: readonly McpAttachmentConfig[] = [],
): McpAttachmentConfig[] {
  const merged = new Map<string, string[] | undefined>();
  const add = (server: string, tools: string[] | undefined) => {
    if (!merged.has(server)) return void merged.set(server, tools ? [...tools] : undefined);
    const known = merged.get(server);
    merged.set(server, known === undefined || tools === undefined ? undefined : [...new Set([...known, ...tools])]);
  };
  for (const entry of setup?.agents[definition.id] ?? []) add(entry.server, entry.tools);
  for (const name of definition.tools ?? []) {
    const match = MCP_TOOL_ENTRY.exec(name);
    if (match) add(match[1], match[2] === '*' ? undefined : [match[2]]);
  }
  for (const entry of extra) add(entry.server, entry.tools);
  return [...merged.keys()].sort().map((server) => {
    const tools = merged.get(server);
    return { server, ...(tools ? { tools } : {}) };
  });
}

/**
 * Which of the definition's servers this person's run may use: a server the deployment does not
 * configure is off (named, so the About block can say so), one limited to named people
 * (`mcp.servers.<name>.people`) is refused to anyone else with `mcp_server_restricted`, and a
 * self-serve caller's run never starts a stdio server (a program in a sandbox, which a self-serve
 * token never reaches: `self_serve_shell`). `extra`: attachments from elsewhere than the deployment
 * (a repository's settings file, when it brings them: the seam of `mcpAttachmentsFor`), admitted alike.
 */
export function admitMcp(
  setup: McpSetup | undefined,
  person: Pick<Requester, 'userId' | 'selfServe'>,
  definition: Pick<AgentDefinition, 'id' | 'tools'>,
  extra: readonly McpAttachmentConfig[] = [],
): McpAdmission {
  const admission: McpAdmission = { servers: [], off: [] };
  for (const attachment of mcpAttachmentsFor(definition, setup, extra)) {
    const server = setup?.servers[attachment.server];
    if (!server) {
      admission.off.push({ server: attachment.server, rule: `mcp.servers.${attachment.server}`, why: 'not configured in this deployment' });
      continue;
    }
    if (server.people && (person.userId === undefined || !server.people.includes(person.userId))) {
      admission.off.push({
        server: attachment.server,
        code: 'mcp_server_restricted',
        rule: `mcp.servers.${attachment.server}.people`,
        why: 'limited to named people, and the requester is not one of them',
      });
      continue;
    }
    if (person.selfServe && server.transport === 'stdio') {
      admission.off.push({
        server: attachment.server,
        code: 'self_serve_shell',
        rule: 'self-serve MCP never reaches a sandbox',
        why: 'it runs in a sandbox, which a self-serve caller never reaches',
      });
      continue;
    }
    admission.servers.push({
      server: attachment.server,
      transport: server.transport,
      ...(attachment.tools ? { tools: attachment.tools } : {}),
    });
  }
  return admission;
}

/** Whether an allowlist (absent: everything) admits a server's tool; `*` matches any run of characters. */
export function mcpToolAllowed(allowlist: readonly string[] | undefined, tool: string): boolean {
  if (allowlist === undefined) return true;
  return allowlist.some((pattern) => {
    if (!pattern.includes('*')) return pattern === tool;
    const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
    return new RegExp(`^${escaped}$`).test(tool);
  });
}

/**
 * The name the model calls a server's tool by, `mcp__<server>__<tool>`, or undefined when the
 * tool's own name cannot be shown to a model as it is (a character or length the providers refuse):
 * such a tool is left out and named in the discovery's problems, never renamed behind the model's back.
 */
export function mcpExposedName(server: string, tool: string): string | undefined {
  const name = `${MCP_PREFIX}${server}__${tool}`;
  return MODEL_TOOL_NAME.test(name) ? name : undefined;
}
