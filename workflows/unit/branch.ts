import { DEFAULT_BRANCH_PREFIX } from '../contracts/pushes';

/**
 * The branch a unit pushes to, the same on every attempt and every worker, so a push is
 * repeatable: `<prefix><unit id made safe>` (`switchboard/acme/app-fix-login`). The prefix is the
 * deployment's `github.pushes.branchPrefix`: the network door lets a unit push only under it.
 */
export function unitBranchName(unitId: string, prefix: string = DEFAULT_BRANCH_PREFIX): string {
  const safe = unitId
    .replace(/^unit:/, '')
    .replace(/[^A-Za-z0-9._/-]+/g, '-')
    .replace(/\/+/g, '/')
    .replace(/\.{2,}/g, '.')
    .replace(/^[-./]+|[-./]+$/g, '');
  return `${prefix}${safe || 'unit'}`;
}
