import { isItemNumber, isRepositoryName, repositoryField } from './github-fields';

describe('GitHub names from outside', () => {
  it.each(['acme/app', 'a/b', 'Acme-Co/app.js', 'acme/.github', 'acme/a..b', `${'o'.repeat(39)}/${'n'.repeat(100)}`])(
    'accepts the repository %s',
    (name) => {
      expect(isRepositoryName(name)).toBe(true);
      expect(repositoryField().safeParse(name).success).toBe(true);
    },
  );

  it.each([
    ['an owner past 39 characters', `${'o'.repeat(40)}/app`],
    ['a name past 100 characters', `acme/${'n'.repeat(101)}`],
    ['a 1,202-character full name', `acme/${'n'.repeat(1197)}`],
    ['a name that is ..', 'acme/..'],
    ['a name that is .', 'acme/.'],
    ['an owner starting with a hyphen', '-acme/app'],
    ['an owner with a dot', 'ac.me/app'],
    ['a third segment', 'acme/app/x'],
    ['a workflow id separator', 'acme/app#1'],
    ['a colon', 'acme/app:x'],
    ['no name', 'acme/'],
    ['a number', 42],
  ])('refuses %s', (_what, name) => {
    expect(isRepositoryName(name)).toBe(false);
  });

  it.each([1, 42, Number.MAX_SAFE_INTEGER])('accepts the number %p', (value) => expect(isItemNumber(value)).toBe(true));
  it.each([0, -1, 2.5, 1e300, Number.MAX_SAFE_INTEGER + 1, NaN, Infinity, '7', null])('refuses the number %p', (value) =>
    expect(isItemNumber(value)).toBe(false),
  );
});
