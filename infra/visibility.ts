/**
 * A Temporal visibility query matching each given attribute exactly (undefined ones are
 * skipped). Text is quoted with quotes and backslashes removed, so a value from a person
 * or a payload cannot change the query's shape.
 */
export function visibilityQuery(filters: Record<string, string | number | undefined>): string {
  return Object.entries(filters)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([name, value]) => `${name} = ${typeof value === 'number' ? Math.trunc(value) : `"${value.replace(/["\\]/g, '')}"`}`)
    .join(' AND ');
}
