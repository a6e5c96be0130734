import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { payloadConverter as workflowConverter } from '../../workflows/payload-converter';
import { ClaimCheckCodec, CLAIM_CHECK_ENCODING, isReference } from './claim-check-codec';
import { DirectoryStore } from './directory-store';

describe('ClaimCheckCodec over a directory', () => {
  let dir: string;
  let codec: ClaimCheckCodec;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'claim-check-'));
    codec = new ClaimCheckCodec(new DirectoryStore(dir), 1_024);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves small payloads in place and moves large ones out, by content address', async () => {
    const small = defaultPayloadConverter.toPayload({ text: 'hi' });
    const large = defaultPayloadConverter.toPayload({ text: 'x'.repeat(50_000) });
    const [keptSmall, reference] = await codec.encode([small, large]);
    expect(keptSmall).toBe(small);
    expect(isReference(reference)).toBe(true);
    expect(new TextDecoder().decode(reference.metadata!.encoding)).toBe(CLAIM_CHECK_ENCODING);
    expect(reference.data!.length).toBeLessThan(200);
    const [again] = await codec.encode([large]);
    expect(again.data).toEqual(reference.data);
    const [decoded] = await codec.decode([reference]);
    expect(defaultPayloadConverter.fromPayload(decoded)).toEqual({ text: 'x'.repeat(50_000) });
    expect(readdirSync(dir)).toHaveLength(1);
  });

  it('names the key and the folder when a payload is missing or corrupt', async () => {
    const [reference] = await codec.encode([defaultPayloadConverter.toPayload('y'.repeat(5_000))]);
    const key = JSON.parse(new TextDecoder().decode(reference.data)).claimCheck as string;
    const hex = key.slice('sha256:'.length);
    writeFileSync(join(dir, hex.slice(0, 2), hex), 'tampered');
    await expect(codec.decode([reference])).rejects.toThrow(/is corrupt/);
    rmSync(join(dir, hex.slice(0, 2)), { recursive: true });
    await expect(codec.decode([reference])).rejects.toThrow(new RegExp(`${key} is missing from the folder ${dir}`));
  });

  it('leaves a payload with its encoding but no reference it could have written (sent by hand) as it is', async () => {
    const forged = { metadata: { encoding: new TextEncoder().encode(CLAIM_CHECK_ENCODING) }, data: new TextEncoder().encode('{"x":1}') };
    expect(await codec.decode([forged])).toEqual([forged]);
  });

  it('as a worker’s codec, turns a reference the store cannot resolve into input a workflow refuses, except an activity’s', async () => {
    const worker = new ClaimCheckCodec(new DirectoryStore(dir), 1_024, { unresolved: 'mark' });
    const hex = 'ab'.repeat(32);
    const forged = {
      metadata: { encoding: new TextEncoder().encode(CLAIM_CHECK_ENCODING) },
      data: new TextEncoder().encode(JSON.stringify({ claimCheck: `sha256:${hex}`, bytes: 12 })),
    };
    const workflow = { type: 'workflow' as const, namespace: 'default', workflowId: 'thread:x' };
    const [missing] = await worker.decode([forged], workflow);
    expect(String(workflowConverter.fromPayload(missing))).toBe('[object UndecodablePayload]');
    expect(workflowConverter.fromPayload(missing)).toMatchObject({ reason: `its reference sha256:${hex} is not in the payload store` });
    // Bytes under the key that are not what it names: the same.
    mkdirSync(join(dir, 'ab'));
    writeFileSync(join(dir, 'ab', hex), 'other bytes');
    const [corrupt] = await worker.decode([forged], workflow);
    expect(workflowConverter.fromPayload(corrupt)).toMatchObject({ reason: expect.stringContaining('holds other bytes') });
    // An activity's payloads are ours: they throw (the task retries), as a client's codec does for everything.
    await expect(worker.decode([forged], { type: 'activity', namespace: 'default', activityId: '1' } as never)).rejects.toThrow(
      /is corrupt/,
    );
    await expect(codec.decode([forged], workflow)).rejects.toThrow(/is corrupt/);
  });
});
