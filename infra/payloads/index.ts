import { isAbsolute, join, resolve } from 'node:path';
import { type DataConverter } from '@temporalio/common';
import { type SwitchboardConfig } from '../config';
import { ClaimCheckCodec } from './claim-check-codec';
import { DirectoryStore } from './directory-store';

export { ClaimCheckCodec, CLAIM_CHECK_ENCODING, type ClaimCheckStore } from './claim-check-codec';
export { DirectoryStore } from './directory-store';

/** The claim-check folder of a deployment: `payloads.dir` (already absolute when loaded), else `<dataDir>/payloads`. */
export function payloadsDir(config: Pick<SwitchboardConfig, 'dataDir' | 'payloads'>): string {
  const dir = config.payloads.dir ?? join(config.dataDir, 'payloads');
  return isAbsolute(dir) ? dir : resolve(dir);
}

/** The codec every worker and client of the deployment uses (they must agree). */
export function payloadCodecFromConfig(config: Pick<SwitchboardConfig, 'dataDir' | 'payloads'>): ClaimCheckCodec {
  return new ClaimCheckCodec(new DirectoryStore(payloadsDir(config)), config.payloads.claimCheckBytes);
}

/** The data converter for `new Client(...)` and `Worker.create(...)`. */
export function dataConverterFromConfig(config: Pick<SwitchboardConfig, 'dataDir' | 'payloads'>): DataConverter {
  return { payloadCodecs: [payloadCodecFromConfig(config)] };
}
