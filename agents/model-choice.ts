import { type Catalog } from './catalog';
import { type AgentsConfig } from './config';
import { type Surface } from './definition';

// Which models a person may choose from chat. Pure: the thread workflow and a run's `task`
// calls check a chosen model with it; the model activities share the id grammar.

export const PROVIDERS = ['anthropic', 'openai', 'scripted'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** Bare ids whose family is unambiguous, as agent defaults often write them (`claude-sonnet-4-6`). */
const BARE_FAMILIES: { pattern: RegExp; provider: ProviderName }[] = [
  { pattern: /^claude-/, provider: 'anthropic' },
  { pattern: /^(gpt-|o\d)/, provider: 'openai' },
];

/**
 * Splits `anthropic:claude-sonnet-4-6` into provider and id; a bare `claude-*`, `gpt-*` or
 * `o<digit>*` id gets its family's provider. Undefined when it is neither.
 */
export function splitModelId(model: string): { provider: ProviderName; id: string } | undefined {
  const bare = BARE_FAMILIES.find((family) => !model.includes(':') && family.pattern.test(model));
  if (bare) return { provider: bare.provider, id: model };
  const colon = model.indexOf(':');
  const provider = colon > 0 ? model.slice(0, colon) : '';
  const id = colon > 0 ? model.slice(colon + 1).trim() : '';
  if (!(PROVIDERS as readonly string[]).includes(provider) || id === '') return undefined;
  return { provider: provider as ProviderName, id };
}

/**
 * One spelling per model, so `claude-opus-4-1` and `anthropic:claude-opus-4-1` compare equal
 * and `scripted:./examples//a.yaml` equals `scripted:examples/a.yaml`. Unparsable text stays.
 */
export function canonicalModel(model: string): string {
  const split = splitModelId(model.trim());
  if (!split) return model.trim();
  if (split.provider !== 'scripted') return `${split.provider}:${split.id}`;
  const segments = split.id.split('/').filter((segment, index) => segment !== '.' && (segment !== '' || index === 0));
  return `scripted:${segments.join('/')}`;
}

/**
 * A model's family, for a role that must run on another one than its parent (rubber-duck): the
 * provider (`anthropic`, `openai`), or for a scripted model its own script (each script stands
 * for a model of its own). Unparsable text is its own family.
 */
export function modelFamily(model: string): string {
  const split = splitModelId(model.trim());
  if (!split) return model.trim();
  return split.provider === 'scripted' ? canonicalModel(model) : split.provider;
}

/**
 * Why a scripted model's path may never be used, or undefined. Scripts are files inside the
 * configured scripted directories, named relative to the base directory: never an absolute
 * path, never `..` (the model activity also checks the real path, symlinks included).
 */
export function scriptedPathProblem(path: string): string | undefined {
  if (path.includes('\0')) return 'it contains a NUL byte';
  if (/^([/\\~]|[A-Za-z]:)/.test(path)) return 'it is an absolute path';
  if (path.split(/[/\\]/).includes('..')) return 'it climbs out with ..';
  return undefined;
}

/** Surfaces only an operator reaches (they hold the Temporal client), so no allowlist applies. */
export const OPERATOR_SURFACES: readonly Surface[] = ['cli'];

/**
 * The models a message may choose: `models.allowed` when configured, else the models the
 * configuration already names (the default, every agent's, every channel's and person's),
 * so by default a directive can only pick what some run would use anyway.
 */
export function allowedModels(catalog: Catalog, config: AgentsConfig, configured?: readonly string[]): string[] {
  const named = configured ?? [
    config.defaults.model,
    ...[...catalog.agents, ...catalog.roles].map((agent) => agent.model),
    ...Object.values(config.entries ?? {}).flatMap((entry) => [entry.model, ...(entry.complementary ?? [])]),
    ...Object.values(config.channels).map((channel) => channel.model),
    ...Object.values(config.grants.people).map((person) => person.model),
  ];
  return [...new Set(named.filter((model): model is string => Boolean(model)).map(canonicalModel))];
}

/** An allowlist entry ending in `*` allows every model its prefix starts (`openai:*`, `scripted:*`). */
export function modelAllowed(model: string, allowed: readonly string[]): boolean {
  const chosen = canonicalModel(model);
  return allowed.some((entry) => {
    const canonical = canonicalModel(entry);
    return canonical.endsWith('*') ? chosen.startsWith(canonical.slice(0, -1)) : chosen === canonical;
  });
}

/** A refusal names the config key that decides it. */
export type ModelChoice = { ok: true } | { ok: false; message: string; rule: 'models.allowed' | 'models.scriptedDirs' };

export interface ModelChoiceInput {
  model: string;
  surface: Surface;
  /** From `allowedModels`. */
  allowed: readonly string[];
}

/**
 * May this requester choose this model? A scripted path that is absolute or climbs with `..`
 * is refused from every surface; the allowlist applies to every surface but the operator's.
 * A refusal is a sentence for the person, naming what they may choose instead.
 */
export function checkModelChoice(input: ModelChoiceInput): ModelChoice {
  const split = splitModelId(input.model);
  const problem = split?.provider === 'scripted' ? scriptedPathProblem(split.id) : undefined;
  if (problem) {
    return {
      ok: false,
      rule: 'models.scriptedDirs',
      message:
        `I did not use the model ${input.model}: ${problem}. A scripted model is a file inside the configured scripted ` +
        'directories, named by a relative path such as scripted:examples/hello.yaml.',
    };
  }
  if ((OPERATOR_SURFACES as readonly string[]).includes(input.surface) || modelAllowed(input.model, input.allowed)) return { ok: true };
  const choices = input.allowed.slice(0, 10).join(', ');
  const more = input.allowed.length > 10 ? ` and ${input.allowed.length - 10} more` : '';
  return {
    ok: false,
    rule: 'models.allowed',
    message:
      `The model ${input.model} is not one a message may choose here. ` +
      (choices ? `You may choose ${choices}${more}, ` : '') +
      'or leave out model: to use the configured one. An operator can allow more models in models.allowed.',
  };
}
