import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { type Command } from 'commander';
import { TokenTable } from '../../infra/api-tokens';
import { doorFromConfig } from '../../server/api/from-config';
import { createMcpServer } from '../../server/mcp/mcp-server';
import { openCliClient } from '../temporal-client';

/** The variable `switchboard mcp` reads its token from (a desktop client's MCP config sets it). */
export const MCP_TOKEN_VARIABLE = 'SWITCHBOARD_TOKEN';

/**
 * `switchboard mcp`: the MCP server over stdio, for desktop clients. It speaks for the token
 * in SWITCHBOARD_TOKEN, checked against the same `api.tokens` hashes as `/mcp`, so grants and
 * the self-serve rule hold here too. stdout is the protocol: every message of ours goes to stderr.
 */
export function registerMcpCommand(program: Command): void {
  program
    .command('mcp')
    .description(`serve MCP over stdio (for desktop clients); the caller is the API token in ${MCP_TOKEN_VARIABLE}`)
    .action(async () => {
      const token = process.env[MCP_TOKEN_VARIABLE];
      if (!token)
        return fail(
          `${MCP_TOKEN_VARIABLE} is not set: create a token with \`switchboard tokens create --user <id>\` and set it in the MCP client's env`,
        );
      let cli;
      try {
        cli = await openCliClient();
      } catch (error) {
        return fail(error instanceof Error ? error.message : String(error));
      }
      const caller = new TokenTable(cli.loaded.config.api.tokens).verify(token, 'mcp');
      if (!caller) {
        await cli.close();
        return fail(`${MCP_TOKEN_VARIABLE} is not a token listed under api.tokens (or SWITCHBOARD_API_TOKENS)`);
      }
      const { config } = cli.loaded;
      const server = createMcpServer(doorFromConfig(cli.loaded, cli.client, config.temporal.uiUrl), caller, {
        askWaitSeconds: config.api.askWaitSeconds,
      });
      const transport = new StdioServerTransport();
      const closed = new Promise<void>((resolve) => {
        transport.onclose = () => resolve();
        process.stdin.once('end', () => resolve());
      });
      await server.connect(transport);
      await closed;
      await server.close().catch(() => undefined);
      await cli.close();
    });
}

function fail(message: string): void {
  console.error(message);
  process.exitCode = 1;
}
