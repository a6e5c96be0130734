import { createRedactor, REDACTED } from './redact';

describe('redaction', () => {
  it('blanks the deployment’s secrets by value: Switchboard’s own and any variable whose name says secret', () => {
    const redact = createRedactor({
      GITHUB_WRITE_TOKEN: 'plain-value-no-shape-1',
      DEPLOY_API_KEY: 'another-plain-value-2',
      SHORT_TOKEN: 'abc',
      HOME: '/root',
    });
    expect(redact('pushed with plain-value-no-shape-1 and another-plain-value-2 in /root')).toBe(
      `pushed with ${REDACTED} and ${REDACTED} in /root`,
    );
    // Too short to redact by value (it would blank ordinary words).
    expect(redact('abc')).toBe('abc');
  });

  it('blanks anything shaped like a credential, whoever’s it is', () => {
    const redact = createRedactor({});
    for (const token of [
      `sbt_${'x'.repeat(43)}`,
      `ghp_${'A1'.repeat(18)}`,
      `ghs_${'b2'.repeat(18)}`,
      `github_pat_${'C3'.repeat(20)}`,
      'xoxb-1234567890-abcdefghij',
      `sk-ant-${'d4'.repeat(20)}`,
      'AKIAIOSFODNN7EXAMPLE',
      `eyJ${'a'.repeat(20)}.eyJ${'b'.repeat(20)}.${'c'.repeat(20)}`,
    ]) {
      expect(redact(`found ${token} here`)).toBe(`found ${REDACTED} here`);
    }
    expect(redact('-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----')).toBe(REDACTED);
    expect(redact('Authorization: Bearer abcdefghijklmnop123')).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(redact('password=hunter2hunter2 api_key: "k3y-v4lu3-x"')).toBe(`password=${REDACTED} api_key: "${REDACTED}"`);
    expect(redact('git clone https://x-access-token:s3cr3t@github.com/a/b')).toBe(
      `git clone https://x-access-token:${REDACTED}@github.com/a/b`,
    );
    // Ordinary words about tokens stay.
    expect(redact('the token verification step counts 3339 tokens')).toBe('the token verification step counts 3339 tokens');
  });
});
