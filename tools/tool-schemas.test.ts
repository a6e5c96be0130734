import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { modelToolSchemas, TOOL_NAMES, TOOLS } from './registry';
import { toolJsonSchema } from './tool';

const FILE = join(__dirname, 'tool-schemas.json');
const REGENERATE = 'UPDATE_TOOL_SCHEMAS=1 npx jest tools/tool-schemas.test.ts';

/**
 * tools/tool-schemas.json is what models are shown: every tool's input as JSON schema, rendered
 * from its zod schema here so that workflows never load zod to render them (tools/lazy-zod.ts).
 */
describe('tools/tool-schemas.json', () => {
  const rendered = Object.fromEntries(TOOL_NAMES.map((name) => [name, toolJsonSchema(TOOLS[name]).inputSchema]));

  it('is current with the tools’ zod schemas', () => {
    const text = `${JSON.stringify(rendered, null, 2)}\n`;
    if (process.env.UPDATE_TOOL_SCHEMAS === '1') writeFileSync(FILE, text);
    if (readFileSync(FILE, 'utf8') !== text) throw new Error(`tools/tool-schemas.json is stale; regenerate it with: ${REGENERATE}`);
  });

  it('is what modelToolSchemas hands the model, with each tool’s description', () => {
    expect(modelToolSchemas([...TOOL_NAMES])).toEqual(
      TOOL_NAMES.map((name) => ({ name, description: TOOLS[name].description, inputSchema: rendered[name] })),
    );
  });
});
