import type { UnitRecord } from '../workflows/contracts';
import { REPO, startShipKit, type ShipKit } from './helpers/ship-kit';

jest.setTimeout(120_000);

describe("the orchestrator's unit tools", () => {
  let ship: ShipKit;
  beforeAll(async () => {
    ship = await startShipKit('orchestrator', { agents: { featureFlags: { orchestrator: true } } });
  });
  afterAll(async () => ship.close());

  it("starts, inspects, steers and stops the person's linked unit, and refuses someone else's", async () => {
    const unitId = `unit:${REPO}:orch-greet`;
    const model = ship.model([
      {
        alternatives: [
          {
            when: { lastUserIncludes: 'The change requested' },
            text: 'Slow change.',
            toolCalls: [{ name: 'bash', input: { command: 'sleep 3300' } }],
          },
          { when: { lastUserIncludes: 'peek' }, text: 'Peeking.', toolCalls: [{ name: 'unit_inspect', input: { unitId } }] },
          { text: 'Starting.', toolCalls: [{ name: 'unit_start', input: { repo: REPO, request: 'Add a greeting', slug: 'orch-greet' } }] },
        ],
      },
      {
        alternatives: [
          { when: { lastUserIncludes: 'peek' }, text: 'Answer: {{lastToolResult}}' },
          { text: 'Inspecting.', toolCalls: [{ name: 'unit_inspect', input: { unitId } }] },
        ],
      },
      { text: 'Steering.', toolCalls: [{ name: 'unit_steer', input: { unitId, text: 'also greet in French' } }] },
      { text: 'Stopping.', toolCalls: [{ name: 'unit_stop', input: { unitId, reason: 'the person changed their mind' } }] },
      { text: 'Done: {{lastToolResult}}' },
    ]);
    const { runId } = await ship.kit.start('start a unit for the greeting', { agent: 'orchestrator', model, requester: 'ada' });
    const record = await ship.kit.result(runId);
    expect(record.outcome).toBe('completed');
    expect(record.toolCalls.map((call) => [call.name, call.ok])).toEqual([
      ['unit_start', true],
      ['unit_inspect', true],
      ['unit_steer', true],
      ['unit_stop', true],
    ]);
    const unit = (await ship.kit.env.client.workflow.getHandle(unitId).result()) as UnitRecord;
    expect(unit).toMatchObject({ outcome: 'stopped', endedBy: 'stopped by ada: the person changed their mind' });

    const other = await ship.kit.start('peek at that unit', { agent: 'orchestrator', model, requester: 'mallory' });
    const refused = await ship.kit.result(other.runId);
    expect(refused.toolCalls).toEqual([
      expect.objectContaining({ name: 'unit_inspect', ok: false, error: expect.stringContaining('is not one of your linked units') }),
    ]);
  });
});
