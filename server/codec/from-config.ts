import { type RequestHandler } from 'express';
import { TokenTable } from '../../infra/api-tokens';
import { CODEC_PATH } from '../../infra/codec-endpoint';
import { type LoadedConfig } from '../../infra/config';
import { type Logger } from '../../infra/logger';
import { payloadCodecFromConfig } from '../../infra/payloads';
import { createCodecRouter } from './router';

/**
 * The codec endpoint's mount, or undefined when `codec.enabled` is off. `webUiUrl` is the Web
 * UI Switchboard links to (the embedded one, or `temporal.uiUrl`): its origin is allowed by
 * CORS, and when it is on a loopback address it may decode without a token (it has no login).
 */
export function codecMountFromConfig(
  loaded: LoadedConfig,
  logger: Logger,
  webUiUrl?: string,
): { path: string; handler: RequestHandler } | undefined {
  const { config } = loaded;
  if (!config.codec.enabled) return undefined;
  const uiOrigin = webUiUrl ? new URL(webUiUrl).origin : undefined;
  const localUi = uiOrigin && isLoopbackHost(new URL(uiOrigin).hostname) ? uiOrigin : undefined;
  const tokens = new TokenTable(config.api.tokens);
  const log = logger.child({ component: 'codec' });
  log.info(
    { path: CODEC_PATH, webUi: uiOrigin, webUiWithoutToken: Boolean(localUi && config.codec.localWebUiWithoutToken), tokens: tokens.size },
    'codec endpoint is on',
  );
  return {
    path: CODEC_PATH,
    handler: createCodecRouter({
      codec: payloadCodecFromConfig(config),
      tokens,
      ...(config.codec.tokenIds ? { tokenIds: config.codec.tokenIds } : {}),
      corsOrigins: [...config.codec.corsOrigins.map((url) => new URL(url).origin), ...(uiOrigin ? [uiOrigin] : [])],
      anonymousDecodeOrigins: localUi && config.codec.localWebUiWithoutToken ? [localUi] : [],
      maxBodyBytes: config.codec.maxBodyBytes,
      logger: log,
    }),
  };
}

function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || /^127\./.test(hostname) || hostname === '[::1]' || hostname === '::1';
}
