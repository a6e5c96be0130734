import type { PlanUnitState } from '../contracts';
import { isBlocked, mayStart, planProblems, topologicalOrder } from './plan-graph';

const unit = (key: string, status: PlanUnitState['status'], dependsOn: string[] = []): PlanUnitState => ({
  key,
  unitId: `unit:a/b:${key}`,
  status,
  dependsOn,
});

describe('plan graphs', () => {
  it('orders units after their dependencies, seed order breaking ties', () => {
    expect(
      topologicalOrder([
        { key: 'c', request: '', dependsOn: ['b'] },
        { key: 'a', request: '' },
        { key: 'b', request: '', dependsOn: ['a'] },
        { key: 'd', request: '' },
      ]),
    ).toEqual(['a', 'b', 'd', 'c']);
  });

  it.each([
    [
      [
        { key: 'a', request: '', dependsOn: ['b'] },
        { key: 'b', request: '', dependsOn: ['a'] },
      ],
      'the dependencies form a cycle',
    ],
    [[{ key: 'a', request: '', dependsOn: ['x'] }], 'a depends on unknown unit "x"'],
    [
      [
        { key: 'a', request: '' },
        { key: 'a', request: '' },
      ],
      'unit key "a" appears twice',
    ],
    [[{ key: 'Bad Key', request: '' }], 'unit key "Bad Key" must be lowercase words joined by hyphens'],
  ])('names what is wrong with a plan', (units, problem) => {
    expect(planProblems(units)).toContain(problem);
  });

  it('starts a dependent after its dependencies merged, or were approved when people merge', () => {
    const all = [unit('a', 'ready'), unit('b', 'waiting', ['a'])];
    expect(mayStart(all[1], all, true)).toBe(false);
    expect(mayStart(all[1], all, false)).toBe(true);
    all[0].status = 'merged';
    expect(mayStart(all[1], all, true)).toBe(true);
  });

  it('blocks a unit whose dependency settled without merging', () => {
    const all = [unit('a', 'settled'), unit('b', 'waiting', ['a']), unit('c', 'waiting', ['b'])];
    expect(isBlocked(all[1], all)).toBe(true);
    expect(isBlocked(all[2], all)).toBe(false);
  });
});
