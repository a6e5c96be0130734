import { z } from 'zod';
import { MCP_SERVER_NAME, type McpSetup } from '../../agents/mcp';

/**
 * The `mcp` section: the MCP servers the deployment offers its agents as tools, and which agents
 * they are attached to. A stdio server runs inside the run's sandbox as its unprivileged user, so
 * whatever it is given (`env`) is as visible to the run's commands as a file in the workspace:
 * never a secret. An HTTP server is reached from the worker; its credentials are named here by
 * environment variable only and never enter the sandbox (infra/config/secrets.ts).
 */
const ServerNameSchema = z.string().regex(MCP_SERVER_NAME, 'lowercase letters, digits and hyphens, starting with a letter (at most 32)');
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const common = {
  description: z.string().min(1).optional().describe('What the server is for, in the operator’s words (docs and `switchboard doctor`).'),
  people: z
    .array(z.string().min(1))
    .optional()
    .describe("If set, the only people (user ids) whose runs may use it; anyone else's runs go on without it (mcp_server_restricted)."),
  startTimeoutMs: z
    .number()
    .int()
    .min(1_000)
    .max(120_000)
    .default(30_000)
    .describe('How long starting (or connecting to) the server and listing its tools may take.'),
  callTimeoutMs: z
    .number()
    .int()
    .min(1_000)
    .max(600_000)
    .default(60_000)
    .describe('How long one tool call may take; past it the call is a tool error and the server is started afresh for the next.'),
  maxResultChars: z
    .number()
    .int()
    .min(1_000)
    .max(200_000)
    .default(30_000)
    .describe('Characters of a tool result the model sees (head and tail, the cut said); like a shell command’s output.'),
};

const StdioServerSchema = z
  .object({
    transport: z.literal('stdio'),
    command: z.string().min(1).describe('The program, looked up on the sandbox’s PATH (its system folders and the worker’s node).'),
    args: z.array(z.string()).default([]).describe('Its arguments.'),
    env: z
      .record(z.string().regex(ENV_NAME, 'an environment variable name'), z.string())
      .default({})
      .describe('Plain values the server sees, beside the sandbox’s own environment. The sandbox is hostile: never a secret.'),
    cwd: z.string().min(1).optional().describe('Where it starts, inside the sandbox (default: the workspace, /workspace).'),
    ...common,
  })
  .strict();

const HeaderSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9-]+$/, 'an HTTP header name'),
    fromEnv: z.string().regex(ENV_NAME, 'an environment variable name').describe('The worker’s environment variable holding the value.'),
    prefix: z.string().optional().describe('Put before the value, e.g. "Bearer ".'),
  })
  .strict();

const HttpServerSchema = z
  .object({
    transport: z.literal('http'),
    url: z.url({ protocol: /^https?$/ }).describe('The server’s streamable-HTTP endpoint.'),
    headers: z
      .array(HeaderSchema)
      .default([])
      .describe('Headers from the worker’s environment (credentials): sent by the worker, never seen by a sandbox.'),
    network: z
      .enum(['public', 'private'])
      .default('public')
      .describe(
        'public: every address the name resolves to must be a public internet address that is not the worker host’s (the sandbox door’s policy). private: loopback and private networks too (an intranet server); link-local and cloud metadata never.',
      ),
    ...common,
  })
  .strict();

export const McpAttachmentSchema = z
  .object({
    server: ServerNameSchema,
    tools: z
      .array(z.string().min(1))
      .optional()
      .describe(
        'The only tools of the server this agent may call, by the server’s tool names (`*` matches any run of characters); absent: all.',
      ),
  })
  .strict();

export const McpServerSchema = z.discriminatedUnion('transport', [StdioServerSchema, HttpServerSchema]);

export const McpConfigSchema = z
  .object({
    servers: z
      .record(z.string(), McpServerSchema)
      .default({})
      .describe('name (lowercase letters, digits and hyphens) -> an MCP server (stdio in the sandbox, or HTTP).'),
    agents: z
      .record(z.string().min(1), z.array(McpAttachmentSchema))
      .default({})
      .describe('agent or role id -> the servers attached to it, each with an optional allowlist of its tools.'),
  })
  .strict()
  .superRefine((mcp, context) => {
    for (const name of Object.keys(mcp.servers)) {
      if (!MCP_SERVER_NAME.test(name))
        context.addIssue({
          code: 'custom',
          path: ['servers', name],
          message: 'lowercase letters, digits and hyphens, starting with a letter (at most 32)',
        });
    }
    for (const [agent, attachments] of Object.entries(mcp.agents)) {
      attachments.forEach((attachment, index) => {
        if (!mcp.servers[attachment.server])
          context.addIssue({
            code: 'custom',
            path: ['agents', agent, index, 'server'],
            message: `no mcp.servers entry is called ${attachment.server}`,
          });
      });
    }
  });

export type McpConfig = z.output<typeof McpConfigSchema>;
export type McpServerConfig = z.output<typeof McpServerSchema>;

/** What decisions need of the section (the admission, the profile): no command, URL or variable names. */
export function mcpSetupOf(mcp: McpConfig): McpSetup {
  return {
    servers: Object.fromEntries(
      Object.entries(mcp.servers).map(([name, server]) => [
        name,
        {
          transport: server.transport,
          ...(server.description ? { description: server.description } : {}),
          ...(server.people ? { people: server.people } : {}),
        },
      ]),
    ),
    agents: mcp.agents,
  };
}
