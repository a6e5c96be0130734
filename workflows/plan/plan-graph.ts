import type { PlanUnitSpec, PlanUnitState } from '../contracts';

/** Problems with a seeded plan: duplicate keys, unknown dependencies, cycles. Empty when it is sound. */
export function planProblems(units: PlanUnitSpec[]): string[] {
  const problems: string[] = [];
  const keys = new Set<string>();
  for (const unit of units) {
    if (!/^[a-z0-9][a-z0-9-]{0,39}$/.test(unit.key)) problems.push(`unit key "${unit.key}" must be lowercase words joined by hyphens`);
    if (keys.has(unit.key)) problems.push(`unit key "${unit.key}" appears twice`);
    keys.add(unit.key);
  }
  for (const unit of units) {
    for (const dependency of unit.dependsOn ?? [])
      if (!keys.has(dependency)) problems.push(`${unit.key} depends on unknown unit "${dependency}"`);
  }
  if (problems.length === 0 && topologicalOrder(units).length !== units.length) problems.push('the dependencies form a cycle');
  return problems;
}

/** Keys in an order where every unit follows its dependencies (stable: seed order breaks ties). */
export function topologicalOrder(units: PlanUnitSpec[]): string[] {
  const order: string[] = [];
  const placed = new Set<string>();
  let progress = true;
  while (progress) {
    progress = false;
    for (const unit of units) {
      if (placed.has(unit.key) || !(unit.dependsOn ?? []).every((dependency) => placed.has(dependency))) continue;
      order.push(unit.key);
      placed.add(unit.key);
      progress = true;
    }
  }
  return order;
}

/**
 * Whether a waiting unit may start: with merge authority its dependencies must be merged
 * (it builds on them); without, approved and green is enough (people merge).
 */
export function mayStart(unit: PlanUnitState, all: PlanUnitState[], mergeAuthority: boolean): boolean {
  if (unit.status !== 'waiting') return false;
  return unit.dependsOn.every((key) => {
    const dependency = all.find((candidate) => candidate.key === key);
    if (!dependency) return false;
    return mergeAuthority ? dependency.status === 'merged' : dependency.status === 'ready' || dependency.status === 'merged';
  });
}

/** A unit whose dependency settled without merging can never start. */
export function isBlocked(unit: PlanUnitState, all: PlanUnitState[]): boolean {
  return (
    unit.status === 'waiting' &&
    unit.dependsOn.some((key) => {
      const dependency = all.find((candidate) => candidate.key === key);
      return dependency?.status === 'settled' || dependency?.status === 'blocked';
    })
  );
}
