import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../infra/paths';
import { parsePlanFile } from './plan-file';

describe('plan files', () => {
  it('reads examples/plan.yaml as two units, the second after the first', () => {
    const result = parsePlanFile(readFileSync(join(projectRoot(), 'examples', 'plan.yaml'), 'utf8'));
    expect(result).toEqual({
      plan: {
        name: 'notes',
        repo: 'acme/app',
        mergeAuthority: true,
        units: [
          { key: 'notes', request: expect.stringContaining('NOTES.md') },
          { key: 'notes-link', request: expect.stringContaining('README'), dependsOn: ['notes'] },
        ],
      },
    });
  });

  it('names the key of every problem in one pass', () => {
    const result = parsePlanFile(
      [
        'name: Bad Name',
        'repo: not-a-repo',
        'mergeAuthority: sometimes',
        'colour: blue',
        'units:',
        '  - key: api',
        '  - key: API',
        '    request: x',
        '    after: [api]',
      ].join('\n'),
    );
    expect(result).toEqual({
      problems: [
        'name: must be lowercase letters, digits and hyphens (at most 40)',
        'repo: must be owner/name',
        'mergeAuthority: Invalid input: expected boolean, received string',
        'units[0].request: is required',
        'units[1].key: must be lowercase letters, digits and hyphens (at most 40)',
        'units[1]: unknown key "after"',
        'the plan: unknown key "colour"',
      ],
    });
  });

  it('names duplicate keys, unknown and self dependencies, and cycles', () => {
    const units = (lines: string[]) => parsePlanFile(['name: p', 'units:', ...lines].join('\n'));
    expect(units(['  - { key: a, request: x, dependsOn: [a, ghost] }', '  - { key: a, request: y }'])).toEqual({
      problems: [
        'units[1].key: "a" is already the key of units[0]',
        'units[0].dependsOn[0]: "a" cannot depend on itself',
        'units[0].dependsOn[1]: unknown unit "ghost" (known: a)',
      ],
    });
    expect(
      units(['  - { key: a, request: x, dependsOn: [b] }', '  - { key: b, request: y, dependsOn: [a] }', '  - { key: c, request: z }']),
    ).toEqual({ problems: ['units: the dependencies form a cycle (these can never start: a, b)'] });
  });

  it('says what is wrong with text that is not a plan', () => {
    expect(parsePlanFile('units: [')).toMatchObject({ problems: [expect.stringMatching(/^not YAML: /)] });
    expect(parsePlanFile('just words')).toEqual({
      problems: ['the plan: must be a YAML mapping with name, units and optionally repo, mergeAuthority, model'],
    });
    expect(parsePlanFile('name: p\nunits: []')).toEqual({ problems: ['units: must list at least one unit'] });
  });
});
