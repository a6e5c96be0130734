import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TOOL_NAMES, TOOLSET_NAMES, toolsetTools } from '../../tools';
import { ATTACH_TOOLS } from './attach-tools';
import { GITHUB_TOOLS } from './github-tools';
import { SKILL_TOOLS } from './skill-tools';
import { TOOL_EXECUTORS, type ExecutorFamily } from './tool-executors';
import { UNIT_TOOLS } from './unit-tools';
import { WEB_TOOLS } from './web-tools';

const ROOT = join(__dirname, '..', '..');
const MODULE_SETS: Record<Exclude<ExecutorFamily, 'native'>, Set<string>> = {
  github: GITHUB_TOOLS,
  unit: UNIT_TOOLS,
  web: WEB_TOOLS,
  skills: SKILL_TOOLS,
  attach: ATTACH_TOOLS,
};

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('no hollow tools', () => {
  const familyOf = (tool: string) => TOOL_EXECUTORS[tool];

  it('gives every tool of every toolset an executor', () => {
    for (const toolset of TOOLSET_NAMES) {
      for (const tool of toolsetTools(toolset)) expect([toolset, tool, familyOf(tool)]).toEqual([toolset, tool, expect.any(String)]);
    }
    expect(Object.keys(TOOL_EXECUTORS).sort()).toEqual([...TOOL_NAMES].sort());
  });

  it("matches each module's tool set to the tools the map sends it", () => {
    for (const [family, set] of Object.entries(MODULE_SETS)) {
      const mapped = TOOL_NAMES.filter((tool) => familyOf(tool) === family).sort();
      expect([family, [...set].sort()]).toEqual([family, mapped]);
    }
  });

  it("handles every native tool in the dispatcher's own switch", () => {
    const dispatcher = readFileSync(join(__dirname, 'tool-dispatch.ts'), 'utf8');
    for (const tool of TOOL_NAMES.filter((name) => familyOf(name) === 'native'))
      expect([tool, dispatcher.includes(`case '${tool}':`)]).toEqual([tool, true]);
  });

  it('leaves no "not connected" stub anywhere in the run path', () => {
    for (const file of [...sources('workflows'), ...sources('tools'), ...sources('activities'), ...sources('agents')]) {
      expect([file, /not connected/i.test(readFileSync(join(ROOT, file), 'utf8'))]).toEqual([file, false]);
    }
  });
});
