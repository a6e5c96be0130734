import { DEFAULT_SHIP_SETTINGS } from '../../activities/agents/agent-setup';
import { builtinCatalog, describeBudget } from '../../agents';
import { defaultAgentsConfig } from '../../agents/config';
import { unitSettings } from './unit-setup';

const setup = (agents = {}) => ({ catalog: builtinCatalog(), config: defaultAgentsConfig(agents), ship: DEFAULT_SHIP_SETTINGS });
const base = {
  unitId: 'unit:acme/app:x',
  repo: 'acme/app',
  replyTarget: { kind: 'cli' as const },
  requester: { id: 'ada', surface: 'cli' as const },
};

describe("a unit's settings", () => {
  it('take the presets when the request narrowed nothing (coding 60, review 30, the unit 90)', () => {
    const settings = unitSettings(setup(), base);
    expect([settings.coding.profile.budget.minutes, settings.review.profile.budget.minutes, settings.budgetMinutes]).toEqual([60, 30, 90]);
  });

  it('are bounded by a budget the request asked for, in every run, as its card says', () => {
    const settings = unitSettings(setup(), { ...base, budgetMinutes: 30, effort: 'low' });
    expect([settings.coding.profile.budget.minutes, settings.review.profile.budget.minutes, settings.budgetMinutes]).toEqual([30, 30, 30]);
    expect(describeBudget(settings.coding.profile.budget)).toBe('30 min (budget directive; preset asks 60)');
    expect(settings.coding.profile.effort).toEqual({ value: 'low', chosenBy: 'directive' });
  });

  it("keep the channel's bounds when the request came from one", () => {
    const settings = unitSettings(setup({ channels: { C1: { budgetMinutes: 20 } } }), { ...base, channelId: 'C1' });
    expect(settings.budgetMinutes).toBe(20);
    expect(settings.coding.profile.budget).toMatchObject({ minutes: 20, boundedBy: 'channel' });
  });
});
