import { builtinCatalog, getAgent } from './catalog';
import { defaultAgentsConfig } from './config';
import { parseDirectives } from './directives';
import { describeBudget, resolveProfile } from './profile';

const catalog = builtinCatalog();
const config = defaultAgentsConfig({
  defaults: { model: 'model-default', effort: 'medium' },
  channels: {
    C45: { budgetMinutes: 45 },
    C200: { budgetMinutes: 200 },
    CREPO: { defaultRepo: 'acme/web', model: 'model-channel', effort: 'low' },
  },
  grants: { people: { U20: { budgetMinutes: 20 }, UFAST: { effort: 'high', model: 'model-person' } } },
});

function profileFor(message: string, channelId?: string, userId?: string) {
  const { directives, text, ignored } = parseDirectives(message);
  return {
    text,
    profile: resolveProfile({
      agent: getAgent(catalog, directives.agent ?? 'general')!,
      config,
      channelId,
      userId,
      directives,
      ignoredDirectives: ignored,
    }),
  };
}

describe('budget resolution: the reference cases, exactly', () => {
  const table: Array<[string, string | undefined, string | undefined, number, string, boolean, string]> = [
    ['agent:explore do it', undefined, undefined, 120, 'preset', false, '120 min (preset)'],
    ['agent:explore budget:30 do it', undefined, undefined, 30, 'directive', false, '30 min (budget directive; preset asks 120)'],
    ['agent:explore budget:200 do it', undefined, undefined, 120, 'preset', true, '120 min (preset; budget:200 narrowed nothing)'],
    ['agent:explore budget:120 do it', undefined, undefined, 120, 'preset', true, '120 min (preset; budget:120 narrowed nothing)'],
    ['agent:explore do it', 'C45', undefined, 45, 'channel', false, '45 min (channel limit; preset asks 120)'],
    [
      'agent:explore budget:60 do it',
      'C45',
      undefined,
      45,
      'channel',
      true,
      '45 min (channel limit; preset asks 120; budget:60 narrowed nothing)',
    ],
    [
      'agent:explore budget:30 do it',
      'C45',
      undefined,
      30,
      'directive',
      false,
      '30 min (budget directive; channel allows 45; preset asks 120)',
    ],
    ['agent:explore budget:1 do it', undefined, undefined, 120, 'preset', false, '120 min (preset)'],
    ['agent:explore do it', 'C200', undefined, 120, 'preset', false, '120 min (preset)'],
    ['agent:explore do it', 'C45', 'U20', 20, 'person', false, '20 min (personal limit; preset asks 120)'],
    [
      'agent:explore budget:10 do it',
      'C45',
      'U20',
      10,
      'directive',
      false,
      '10 min (budget directive; personal limit 20; preset asks 120)',
    ],
    ['agent:general budget:200 hi', undefined, undefined, 15, 'preset', true, '15 min (preset; budget:200 narrowed nothing)'],
  ];
  it.each(table)('%j in channel %s by %s -> %i min bounded by %s', (message, channel, user, minutes, boundedBy, narrowedNothing, words) => {
    const { profile } = profileFor(message, channel, user);
    expect(profile.budget.minutes).toBe(minutes);
    expect(profile.budget.boundedBy).toBe(boundedBy);
    expect(profile.budget.directiveNarrowedNothing).toBe(narrowedNothing);
    expect(profile.budget.presetMinutes).toBe(profile.agent === 'explore' ? 120 : 15);
    expect(describeBudget(profile.budget)).toBe(words);
    expect(profile.turnGuard).toBe(minutes * 6);
  });

  it('budget:1 is text, never a refusal: the run keeps the preset and the text keeps the word', () => {
    const { text, profile } = profileFor('agent:explore budget:1 run it');
    expect(text).toBe('budget:1 run it');
    expect(profile.budget.requestedMinutes).toBeUndefined();
    expect(profile.ignoredDirectives).toEqual([{ token: 'budget:1', reason: 'below the 5-minute minimum' }]);
  });

  it('the shared preset is untouched by a narrowed run', () => {
    profileFor('agent:explore budget:30 go');
    expect(getAgent(catalog, 'explore')!.budgetMinutes).toBe(120);
  });

  it('a directive never changes machine, identity or tools', () => {
    const { profile } = profileFor('agent:explore budget:30 model:x effort:low go');
    expect(profile).toMatchObject({ machine: 'repo-cold', identity: 'read', toolset: 'explore', cacheTtl: '1h', tokenCap: 64_000 });
    expect(profile.tools).toContain('web_search');
  });
});

describe('model, effort and repository choices', () => {
  const table: Array<[string, string | undefined, string | undefined, string, string, string, string]> = [
    ['agent:explore go', undefined, undefined, 'model-default', 'default', 'medium', 'default'],
    ['agent:review go', undefined, undefined, 'model-default', 'default', 'high', 'preset'],
    ['agent:review go', 'CREPO', undefined, 'model-channel', 'channel', 'low', 'channel'],
    ['agent:review go', 'CREPO', 'UFAST', 'model-person', 'person', 'high', 'person'],
    ['agent:review model:m9 effort:medium go', 'CREPO', 'UFAST', 'm9', 'directive', 'medium', 'directive'],
  ];
  it.each(table)('%j channel %s user %s -> model %s (%s), effort %s (%s)', (message, channel, user, model, modelBy, effort, effortBy) => {
    const { profile } = profileFor(message, channel, user);
    expect(profile.model).toEqual({ value: model, chosenBy: modelBy });
    expect(profile.effort).toEqual({ value: effort, chosenBy: effortBy });
  });

  it('repository: the in directive, else the channel default', () => {
    expect(profileFor('in acme/api: agent:explore go', 'CREPO').profile.repo).toEqual({ value: 'acme/api', chosenBy: 'directive' });
    expect(profileFor('agent:explore go', 'CREPO').profile.repo).toEqual({ value: 'acme/web', chosenBy: 'channel' });
    expect(profileFor('agent:explore go').profile.repo).toBeUndefined();
  });

  it('ship carries its pipeline; a profile is plain data', () => {
    const { profile } = profileFor('agent:ship fix it');
    expect(profile.pipeline).toBe('ship');
    expect(JSON.parse(JSON.stringify(profile))).toEqual(profile);
  });
});
