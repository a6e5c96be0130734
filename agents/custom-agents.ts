// The one file in agents/ that does I/O: it reads the custom-agents folder. Workflow code
// must not import it; the thread receives the resulting Catalog as plain data instead.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { type Catalog, type CatalogProblem, buildCatalog } from './catalog';
import { type AgentDefinition } from './definition';
import { AgentDefinitionSchema } from './definition-schema';

export const CUSTOM_AGENT_SUFFIX = '.agent.yaml';

export interface LoadedCustomAgents {
  definitions: Array<{ definition: AgentDefinition; source: string }>;
  /** Each bad file with its path and failing field; a bad file is skipped, never fatal. */
  problems: CatalogProblem[];
}

/**
 * Reads every `*.agent.yaml` in `folder` (sorted, so the result is stable). The id defaults
 * to the file name without the suffix and, when given, must match it.
 */
export function loadCustomAgents(folder: string): LoadedCustomAgents {
  const result: LoadedCustomAgents = { definitions: [], problems: [] };
  if (!existsSync(folder) || !statSync(folder).isDirectory()) {
    result.problems.push({ source: folder, field: 'customAgentsDir', message: 'folder does not exist' });
    return result;
  }
  const files = readdirSync(folder)
    .filter((name) => name.endsWith(CUSTOM_AGENT_SUFFIX))
    .sort();
  for (const name of files) {
    const path = join(folder, name);
    const loaded = loadFile(path);
    if ('definition' in loaded) result.definitions.push({ definition: loaded.definition, source: path });
    else result.problems.push(loaded);
  }
  return result;
}

/** The built-ins plus the folder's custom agents, with every problem found on the way. */
export function loadCatalog(folder?: string): { catalog: Catalog; problems: CatalogProblem[] } {
  if (folder === undefined) return buildCatalog();
  const custom = loadCustomAgents(folder);
  const merged = buildCatalog(custom.definitions);
  return { catalog: merged.catalog, problems: [...custom.problems, ...merged.problems] };
}

function loadFile(path: string): { definition: AgentDefinition } | CatalogProblem {
  const stem = basename(path).slice(0, -CUSTOM_AGENT_SUFFIX.length);
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(path, 'utf8'));
  } catch (error) {
    const detail = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return { source: path, field: '(file)', message: `not valid YAML: ${detail}` };
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { source: path, field: '(file)', message: 'expected a mapping of definition fields' };
  }
  const input = { id: stem, ...(raw as Record<string, unknown>) };
  const parsed = AgentDefinitionSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : issue.path.map(String).join('.') || '(file)';
    const message = issue.code === 'unrecognized_keys' ? 'unknown field' : issue.message;
    return { source: path, field, message };
  }
  if (parsed.data.id !== stem) {
    return { source: path, field: 'id', message: `"${parsed.data.id}" does not match the file name (${stem}${CUSTOM_AGENT_SUFFIX})` };
  }
  return { definition: parsed.data };
}
