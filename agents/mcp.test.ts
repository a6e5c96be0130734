import { admitMcp, mcpAttachmentsFor, mcpExposedName, mcpToolAllowed, type McpSetup } from './mcp';

const setup: McpSetup = {
  servers: { tracker: { transport: 'http', people: ['ana'] }, files: { transport: 'stdio' } },
  agents: { general: [{ server: 'tracker', tools: ['search_*'] }, { server: 'files' }], coding: [{ server: 'files', tools: ['read'] }] },
};

describe('MCP servers for a run (the pure half)', () => {
  it("merges the deployment's attachments with a definition's own entries, in server order", () => {
    expect(mcpAttachmentsFor({ id: 'coding', tools: ['bash', 'mcp__files__write', 'mcp__docs__*'] }, setup)).toEqual([
      { server: 'docs' },
      { server: 'files', tools: ['read', 'write'] },
    ]);
    expect(mcpAttachmentsFor({ id: 'general' }, setup)).toEqual([{ server: 'files' }, { server: 'tracker', tools: ['search_*'] }]);
  });

  it('admits a server limited to named people for them only; one the deployment lacks is named, not fatal', () => {
    expect(admitMcp(setup, { userId: 'ana' }, { id: 'general' }).servers.map((entry) => entry.server)).toEqual(['files', 'tracker']);
    const bob = admitMcp(setup, { userId: 'bob' }, { id: 'general' });
    expect(bob.servers).toEqual([{ server: 'files', transport: 'stdio' }]);
    expect(bob.off).toEqual([
      {
        server: 'tracker',
        code: 'mcp_server_restricted',
        rule: 'mcp.servers.tracker.people',
        why: 'limited to named people, and the requester is not one of them',
      },
    ]);
    expect(admitMcp(setup, { userId: 'ana' }, { id: 'coding', tools: ['mcp__gone__x'] }).off).toEqual([
      { server: 'gone', rule: 'mcp.servers.gone', why: 'not configured in this deployment' },
    ]);
  });

  it("keeps a self-serve caller's run away from stdio servers (they run in a sandbox)", () => {
    const admission = admitMcp(setup, { userId: 'ana', selfServe: true }, { id: 'general' });
    expect(admission.servers.map((entry) => entry.server)).toEqual(['tracker']);
    expect(admission.off).toEqual([expect.objectContaining({ server: 'files', code: 'self_serve_shell' })]);
  });

  it('filters tools by the allowlist (globs), and names them as a model may call them', () => {
    expect(mcpToolAllowed(['search_*', 'get'], 'search_issues')).toBe(true);
    expect(mcpToolAllowed(['search_*', 'get'], 'get_all')).toBe(false);
    expect(mcpToolAllowed(undefined, 'anything')).toBe(true);
    expect(mcpExposedName('tracker', 'search_issues')).toBe('mcp__tracker__search_issues');
    expect(mcpExposedName('tracker', 'search.issues')).toBeUndefined();
    expect(mcpExposedName('tracker', 'x'.repeat(60))).toBeUndefined();
  });
});
