import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { type Request, type Response, Router } from 'express';
import { type Caller } from '../../infra/api-tokens';
import { type Logger } from '../../infra/logger';
import { type ApiRouterOptions, authenticate, errorHandler, jsonBody } from '../api/router';
import { createMcpServer, type McpServerOptions } from './mcp-server';

/**
 * MCP over streamable HTTP at `/mcp`, stateless: each POST is verified (the same bearer
 * tokens and rate limits as the REST API), gets a server for its caller, and is answered on
 * its own (JSON or an SSE stream while a long `ask` waits). There are no sessions to keep.
 */
export function createMcpRouter(options: ApiRouterOptions & McpServerOptions): Router {
  const router = Router();
  router.use(authenticate(options, 'mcp'));
  router.use(jsonBody(options.maxBodyBytes));
  router.post('/', async (req: Request & { caller?: Caller }, res: Response) => {
    const server = createMcpServer(options.door, req.caller!, options);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (error) {
      logFailure(options.logger, error);
      if (!res.headersSent) res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null });
    }
  });
  // Stateless: no server-initiated stream to open and no session to end.
  const notAllowed = (_req: Request, res: Response) =>
    void res
      .status(405)
      .set('Allow', 'POST')
      .json({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless (POST only).' },
        id: null,
      });
  router.get('/', notAllowed);
  router.delete('/', notAllowed);
  router.use(errorHandler(options.logger));
  return router;
}

function logFailure(logger: Logger, error: unknown): void {
  logger.error({ err: error }, 'MCP request failed');
}
