import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REGENERATE_AGENTS_DOC, renderAgentsDoc } from './docs';
import { BUILTIN_AGENTS, BUILTIN_ROLES } from './builtins';
import { TOOLSET_NAMES } from '../tools/toolsets';

const DOC = join(__dirname, '..', 'docs', 'agents.md');

describe('docs/agents.md', () => {
  const rendered = renderAgentsDoc();

  it('lists every agent, role and toolset', () => {
    for (const agent of BUILTIN_AGENTS) expect(rendered).toContain(`### ${agent.id} (${agent.displayName})`);
    for (const role of BUILTIN_ROLES) expect(rendered).toContain(`| ${role.id} (${role.displayName}) |`);
    for (const toolset of TOOLSET_NAMES) expect(rendered).toContain(`- \`${toolset}\`: `);
  });

  it('is current with the definitions', () => {
    if (process.env.UPDATE_DOCS === '1') writeFileSync(DOC, rendered);
    const onDisk = readFileSync(DOC, 'utf8');
    if (onDisk !== rendered) throw new Error(`docs/agents.md is stale; regenerate it with: ${REGENERATE_AGENTS_DOC}`);
  });
});
