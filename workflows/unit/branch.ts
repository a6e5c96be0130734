/**
 * The branch a unit pushes to, the same on every attempt and every worker, so a push is
 * repeatable: `switchboard/<unit id made safe>`.
 */
export function unitBranchName(unitId: string): string {
  const safe = unitId
    .replace(/^unit:/, '')
    .replace(/[^A-Za-z0-9._/-]+/g, '-')
    .replace(/\/+/g, '/')
    .replace(/\.{2,}/g, '.')
    .replace(/^[-./]+|[-./]+$/g, '');
  return `switchboard/${safe || 'unit'}`;
}
