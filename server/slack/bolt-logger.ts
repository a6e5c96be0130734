import { LogLevel, type Logger as BoltLogger } from '@slack/bolt';
import { type Logger } from '../../infra/logger';

/** Bolt's logger interface over ours, so Bolt's lines land in the same stream. */
export function boltLogger(logger: Logger): BoltLogger {
  const child = logger.child({ component: 'slack' });
  let level = LogLevel.INFO;
  const write =
    (method: 'debug' | 'info' | 'warn' | 'error') =>
    (...messages: unknown[]) => {
      const text = messages.map((message) => (typeof message === 'string' ? message : JSON.stringify(message))).join(' ');
      // The Web API client warns on every retry of a request; the outcome is reported once
      // (by the activity or by the start-up check), so the attempts are debug detail.
      child[method === 'warn' && text.startsWith('http request failed') ? 'debug' : method](text);
    };
  return {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    setLevel: (next: LogLevel) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}
