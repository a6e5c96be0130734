import { builtinCatalog } from './catalog';
import { defaultAgentsConfig } from './config';
import { allowedModels, canonicalModel, checkModelChoice, modelAllowed, scriptedPathProblem, splitModelId } from './model-choice';

describe('model choice', () => {
  it('spells each model one way', () => {
    expect(canonicalModel('claude-opus-4-1')).toBe('anthropic:claude-opus-4-1');
    expect(canonicalModel('gpt-4.1')).toBe('openai:gpt-4.1');
    expect(canonicalModel('scripted:./examples//hello.yaml')).toBe('scripted:examples/hello.yaml');
    expect(canonicalModel('llama3')).toBe('llama3');
    expect(splitModelId('gemini:pro')).toBeUndefined();
  });

  it.each([
    ['/etc/passwd', 'absolute'],
    ['\\\\server\\share.yaml', 'absolute'],
    ['C:/x.yaml', 'absolute'],
    ['~/x.yaml', 'absolute'],
    ['../../x.yaml', '..'],
    ['examples/../../x.yaml', '..'],
    ['examples\\..\\x.yaml', '..'],
    ['a\0b', 'NUL'],
  ])('refuses the scripted path %p', (path, why) => {
    expect(scriptedPathProblem(path)).toContain(why);
  });

  it('accepts relative scripted paths', () => {
    expect(scriptedPathProblem('examples/hello.yaml')).toBeUndefined();
    expect(scriptedPathProblem('./examples/a..b.yaml')).toBeUndefined();
  });

  it('allows by default only the models the configuration names', () => {
    const config = defaultAgentsConfig({
      channels: { C1: { model: 'openai:gpt-4.1' } },
      grants: { people: { U1: { model: 'scripted:examples/hello.yaml' } } },
    });
    expect(allowedModels(builtinCatalog(), config)).toEqual([
      'anthropic:claude-sonnet-4-6',
      'openai:gpt-4.1',
      'scripted:examples/hello.yaml',
    ]);
    expect(allowedModels(builtinCatalog(), config, ['claude-*'])).toEqual(['anthropic:claude-*']);
  });

  it('matches exact ids and prefixes ending in *', () => {
    expect(modelAllowed('claude-sonnet-4-6', ['anthropic:claude-sonnet-4-6'])).toBe(true);
    expect(modelAllowed('anthropic:claude-opus-4-1', ['anthropic:claude-sonnet-4-6'])).toBe(false);
    expect(modelAllowed('anthropic:claude-opus-4-1', ['claude-*'])).toBe(true);
    expect(modelAllowed('scripted:x.yaml', ['openai:*'])).toBe(false);
    expect(modelAllowed('openai:gpt-4.1', ['*'])).toBe(true);
  });

  it('answers a refusal with what the person may choose', () => {
    const refused = checkModelChoice({ model: 'openai:gpt-5', surface: 'slack', allowed: ['anthropic:claude-sonnet-4-6'] });
    expect(refused).toEqual({
      ok: false,
      rule: 'models.allowed',
      message: expect.stringMatching(
        /^The model openai:gpt-5 is not one .*You may choose anthropic:claude-sonnet-4-6, or leave out model:/,
      ),
    });
    expect(checkModelChoice({ model: 'openai:gpt-5', surface: 'cli', allowed: [] })).toEqual({ ok: true });
    expect(checkModelChoice({ model: 'scripted:/etc/passwd', surface: 'cli', allowed: ['*'] })).toMatchObject({ ok: false });
  });
});
