/**
 * Temporal for tests: the one dev server that globalSetup starts (temp SQLite file, free ports), and
 * helpers that connect test code to it or start a time-skipping server from the local binary.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { startChildServer } from '../../src/dev/child-server';
import { findTemporalTestServer, probeConnection, startTemporalDevServer, type TemporalDevServer } from '../../src/dev/temporal-server';
import type { DataConverter } from '@temporalio/common';
import { loadConfig } from '../../src/families';
import { taskQueues, type TaskQueues } from '../../src/core/contracts';
import { temporalDataConverter } from '../../src/crypto/payload-codec';
import { SERVER_START_TIMEOUT_MS } from './poll';

/**
 * The data converter of the project's clients and workers under the test config (AR-6 payload
 * codec with the development key): every test client and worker uses it, like the services do.
 */
export function testDataConverter(): DataConverter {
  return temporalDataConverter(loadConfig({ NODE_ENV: 'test' }).temporal.payloadCodec);
}

/** Starts the shared test dev server; `stop()` also deletes its SQLite file and log. */
export async function startTestTemporal(): Promise<TemporalDevServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'test-temporal-'));
  try {
    const server = await startTemporalDevServer({
      dbFilename: path.join(dir, 'temporal.sqlite'),
      logFile: path.join(dir, 'server.log'),
      startTimeoutMs: SERVER_START_TIMEOUT_MS,
      // One partition per task queue: dispatch order (priority, fairness) is then one order that
      // tests can assert, not one per partition.
      dynamicConfig: { 'matching.numTaskqueueReadPartitions': '1', 'matching.numTaskqueueWritePartitions': '1' },
    });
    return {
      ...server,
      stop: async () => {
        try {
          await server.stop();
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * Address of the shared dev server (`TEST_TEMPORAL_ADDRESS`, set by globalSetup).
 * @throws Error when the tests were not started through jest's globalSetup.
 */
export function testTemporalAddress(): string {
  const address = process.env.TEST_TEMPORAL_ADDRESS;
  if (!address) throw new Error('TEST_TEMPORAL_ADDRESS is not set: run the tests through jest (globalSetup)');
  return address;
}

/** A test environment on the shared dev server (no time skipping); call `teardown()` after use. */
export function sharedTestEnv(): Promise<TestWorkflowEnvironment> {
  return TestWorkflowEnvironment.createFromExistingServer({
    address: testTemporalAddress(),
    namespace: 'default',
    client: { dataConverter: testDataConverter() },
  });
}

/**
 * A time-skipping environment on its own test server: the local binary (`findTemporalTestServer`)
 * started here and waited for until it answers ({@link startTimeSkippingServer}), else the SDK's
 * download (which gives its server a fixed 5 s to come up). `teardown()` also stops the server.
 */
export async function timeSkippingTestEnv(): Promise<TestWorkflowEnvironment> {
  const client = { dataConverter: testDataConverter() };
  const binary = findTemporalTestServer();
  if (!binary) return TestWorkflowEnvironment.createTimeSkipping({ client });
  const server = await startTimeSkippingServer(binary);
  try {
    // The SDK's own constructor of an environment on a server it did not start, with time skipping
    // (its public one for an existing server turns time skipping off).
    const create = (TestWorkflowEnvironment as unknown as { create(opts: object): Promise<TestWorkflowEnvironment> }).create.bind(TestWorkflowEnvironment);
    const env = await create({ server: { type: 'existing' }, address: server.address, namespace: 'default', supportsTimeSkipping: true, client });
    const teardown = env.teardown.bind(env);
    env.teardown = async () => {
      try {
        await teardown();
      } finally {
        await server.stop();
      }
    };
    return env;
  } catch (err) {
    await server.stop();
    throw err;
  }
}

/**
 * Starts the time-skipping test server `binary` on a port verified to be its own and resolves once
 * it answers (src/dev/child-server.ts: started again on another port when the port was taken in
 * between or the server exited, twice at most).
 * @throws ChildServerError with the server's output when it keeps exiting or does not answer within {@link SERVER_START_TIMEOUT_MS}.
 */
async function startTimeSkippingServer(binary: string): Promise<{ address: string; stop(): Promise<void> }> {
  const server = await startChildServer({
    name: `time-skipping test server ${binary}`,
    command: binary,
    args: ([port]) => [String(port)],
    startTimeoutMs: SERVER_START_TIMEOUT_MS,
    stopSignal: 'SIGKILL',
    ready: async ([port]) => {
      const connection = await probeConnection(`127.0.0.1:${port}`, 2000);
      try {
        await connection.withDeadline(Date.now() + 5000, () => connection.workflowService.getSystemInfo({}));
        return true;
      } finally {
        await connection.close();
      }
    },
  });
  return { address: `127.0.0.1:${server.ports[0]}`, stop: server.stop };
}

/** Task-queue names under a fresh random prefix, so tests never share queues. */
export function uniqueTaskQueues(label = 't'): TaskQueues {
  return taskQueues(`${label}${randomBytes(4).toString('hex')}-`);
}
