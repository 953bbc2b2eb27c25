/**
 * Temporal for tests: the one dev server that globalSetup starts (temp SQLite file, free ports), and
 * helpers that connect test code to it or start a time-skipping server from the local binary.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { findTemporalTestServer, startTemporalDevServer, type TemporalDevServer } from '../../src/dev/temporal-server';
import type { DataConverter } from '@temporalio/common';
import { loadConfig } from '../../src/families';
import { taskQueues, type TaskQueues } from '../../src/core/contracts';
import { temporalDataConverter } from '../../src/crypto/payload-codec';

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
 * A time-skipping environment on its own test server, started from the local binary when there is
 * one (see `findTemporalTestServer`), else downloaded by the SDK. Call `teardown()` after use.
 */
export function timeSkippingTestEnv(): Promise<TestWorkflowEnvironment> {
  const binary = findTemporalTestServer();
  return TestWorkflowEnvironment.createTimeSkipping(
    { client: { dataConverter: testDataConverter() }, ...(binary ? { server: { executable: { type: 'existing-path', path: binary } } } : {}) },
  );
}

/** Task-queue names under a fresh random prefix, so tests never share queues. */
export function uniqueTaskQueues(label = 't'): TaskQueues {
  return taskQueues(`${label}${randomBytes(4).toString('hex')}-`);
}
