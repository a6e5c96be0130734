import { LogLevel, type Logger as BoltLogger } from '@slack/bolt';
import { type Logger } from '../../infra/logger';

/** Bolt's logger interface over ours, so Bolt's lines land in the same stream. */
export function boltLogger(logger: Logger): BoltLogger {
  const child = logger.child({ component: 'slack' });
  let level = LogLevel.INFO;
  const write =
    (method: 'debug' | 'info' | 'warn' | 'error') =>
    (...messages: unknown[]) => {
      child[method](messages.map((message) => (typeof message === 'string' ? message : JSON.stringify(message))).join(' '));
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
