import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import webpack from 'webpack';
import { projectRoot } from '../../infra/paths';
import { registerTestTools } from '../fixtures/mcp/test-tools';

/**
 * The stdio test server (test/fixtures/mcp/stdio-main.ts) and the official SDK it is built on,
 * bundled into one file: a run's sandbox sees only the system folders and its workspace, so the
 * test writes this file into the workspace and the run starts it there with the sandbox's node.
 */
export async function bundleStdioServer(outDir: string): Promise<string> {
  const compiler = webpack({
    mode: 'development',
    devtool: false,
    target: 'node',
    context: projectRoot(),
    entry: join(projectRoot(), 'test', 'fixtures', 'mcp', 'stdio-main.ts'),
    output: { path: outDir, filename: 'mcp-stdio-server.js' },
    resolve: { extensions: ['.ts', '.js', '.json'], extensionAlias: { '.js': ['.ts', '.js'] } },
    module: {
      rules: [
        {
          test: /\.ts$/,
          exclude: /node_modules/,
          use: { loader: 'swc-loader', options: { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } } },
        },
      ],
    },
    optimization: { minimize: false },
    infrastructureLogging: { level: 'error' },
  });
  await new Promise<void>((resolve, reject) =>
    compiler.run((error, stats) => {
      compiler.close(() => undefined);
      if (error) return reject(error);
      if (stats?.hasErrors()) return reject(new Error(stats.toString({ all: false, errors: true })));
      resolve();
    }),
  );
  return readFileSync(join(outDir, 'mcp-stdio-server.js'), 'utf8');
}

export interface HttpMcpServer {
  url: string;
  /** The Authorization header of every request the server received. */
  authorizations: string[];
  close(): Promise<void>;
}

/** A streamable-HTTP MCP server on the official SDK (stateless: a server and transport per request), on a free loopback port. */
export async function startHttpMcpServer(): Promise<HttpMcpServer> {
  const authorizations: string[] = [];
  const server: Server = createServer((req, res) => {
    authorizations.push(String(req.headers.authorization ?? 'none'));
    void (async () => {
      const body = req.method === 'POST' ? JSON.parse((await readBody(req)) || 'null') : undefined;
      const mcp = new McpServer({ name: 'switchboard-test-http', version: '1.0.0' });
      registerTestTools(mcp, 'http');
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void mcp.close();
      });
      await mcp.connect(transport);
      await transport.handleRequest(req, res, body);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    authorizations,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
