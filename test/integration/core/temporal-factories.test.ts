/**
 * AR-6 by construction: the one Temporal client factory (src/core/connections.ts) and the one
 * worker factory (src/core/worker.ts, under every declared queue's worker) always apply the
 * payload codec; neither takes a data converter of its own. What a codec-less outsider then sees
 * in real histories is checked in ./payload-codec.test.ts.
 */
import { Connection } from '@temporalio/client';
import { defaultPayloadConverter, type LoadedDataConverter, type Payload } from '@temporalio/common';
import { NativeConnection } from '@temporalio/worker';
import { temporalClient } from '../../../src/core/connections';
import { createWorker } from '../../../src/core/worker';
import { ENCRYPTED_ENCODING, METADATA_KEY_ID, payloadCodecFromConfig } from '../../../src/crypto/payload-codec';
import { workerQueues } from '../../../src/families';
import { createQueueWorker } from '../../../src/workers/queue-worker';
import { startStack, workflowBundle, type Stack } from '../../support/stack';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ aiWorker: false, aiRunsWorker: false });
});
afterAll(async () => stack?.stop());

const text = (b: Uint8Array | null | undefined) => Buffer.from(b ?? new Uint8Array()).toString('utf8');

/** Encodes a value as the converter would send it to Temporal. */
async function sent(converter: LoadedDataConverter, value: unknown): Promise<Payload> {
  let payloads = [defaultPayloadConverter.toPayload(value)];
  for (const codec of converter.payloadCodecs) payloads = await codec.encode(payloads);
  return payloads[0]!;
}

function expectEncrypted(p: Payload, marker: string): void {
  expect(text(p.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
  expect(text(p.metadata?.[METADATA_KEY_ID])).toBe(payloadCodecFromConfig(stack.config.temporal.payloadCodec).activeKeyId);
  expect(text(p.data)).not.toContain(marker);
}

it('a client from the factory encrypts every payload it sends', async () => {
  const connection = Connection.lazy({ address: stack.config.temporal.address });
  try {
    const client = temporalClient(connection, stack.config.temporal);
    expectEncrypted(await sent(client.options.loadedDataConverter, { secret: 'client-marker' }), 'client-marker');
    // @ts-expect-error the factory takes no data converter, and one passed anyway changes nothing
    const stubborn = temporalClient(connection, stack.config.temporal, { dataConverter: { payloadCodecs: [] } });
    expectEncrypted(await sent(stubborn.options.loadedDataConverter, { secret: 'still-marker' }), 'still-marker');
  } finally {
    await connection.close();
  }
});

it('the worker factory encrypts, and offers no data converter option', async () => {
  const connection = await NativeConnection.connect({ address: stack.config.temporal.address });
  try {
    const spec = { connection, temporal: stack.config.temporal, taskQueue: `${stack.config.temporal.taskQueuePrefix}factory-probe`, activities: { probe: async () => 'ok' }, db: stack.db };
    const worker = await createWorker(spec);
    expectEncrypted(await sent(worker.options.loadedDataConverter, 'worker-marker'), 'worker-marker');
    await worker.runUntil(Promise.resolve());
    // @ts-expect-error the factory takes no data converter, and one passed anyway changes nothing
    const stubborn = await createWorker({ ...spec, dataConverter: { payloadCodecs: [] } });
    expectEncrypted(await sent(stubborn.options.loadedDataConverter, 'still-marker'), 'still-marker');
    await stubborn.runUntil(Promise.resolve());
  } finally {
    await connection.close();
  }
});

it('every declared queue\'s worker encrypts', async () => {
  const connection = await NativeConnection.connect({ address: stack.config.temporal.address });
  try {
    const bundle = await workflowBundle();
    for (const queue of workerQueues()) {
      const worker = await createQueueWorker(queue, { config: stack.config, db: stack.db, client: stack.client, connection, workflowBundle: bundle });
      expect({ queue, taskQueue: worker.options.taskQueue }).toEqual({ queue, taskQueue: `${stack.config.temporal.taskQueuePrefix}${queue}` });
      expectEncrypted(await sent(worker.options.loadedDataConverter, `${queue}-marker`), `${queue}-marker`);
      await worker.runUntil(Promise.resolve());
    }
  } finally {
    await connection.close();
  }
});
