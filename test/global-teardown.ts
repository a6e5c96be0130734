import { type DevServer } from '../infra/dev-server';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __switchboardTemporal?: DevServer }).__switchboardTemporal?.stop();
}
