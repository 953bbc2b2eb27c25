/**
 * Temporal for tests: the one dev server that globalSetup starts (temp SQLite file, free ports), and
 * helpers that connect test code to it or start a time-skipping server from the local binary.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { findTemporalTestServer, getFreePort, startTemporalDevServer, type TemporalDevServer } from '../../src/dev/temporal-server';
import type { DataConverter } from '@temporalio/common';
import { loadConfig } from '../../src/families';
import { taskQueues, type TaskQueues } from '../../src/core/contracts';
import { temporalDataConverter } from '../../src/crypto/payload-codec';
import { pollUntil, PollTimeoutError, SERVER_START_TIMEOUT_MS } from './poll';

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
 * Starts the time-skipping test server `binary` on a free port and resolves once it answers (within
 * {@link SERVER_START_TIMEOUT_MS}). A server that exits before it answers (its port was taken in
 * between) is started again on a new port, twice at most.
 * @throws Error with the server's output when it keeps exiting or does not answer in time.
 */
async function startTimeSkippingServer(binary: string): Promise<{ address: string; stop(): Promise<void> }> {
  for (let attempt = 1; ; attempt++) {
    const address = `127.0.0.1:${await getFreePort()}`;
    const child = spawn(binary, [address.split(':')[1]!], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (b: Buffer) => (output = (output + b.toString()).slice(-4000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const killOnExit = () => child.kill('SIGKILL');
    process.once('exit', killOnExit);
    const stop = async () => {
      process.removeListener('exit', killOnExit);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    };
    try {
      await pollUntil(
        async () => {
          if (child.exitCode !== null || child.signalCode !== null) return 'exited';
          try {
            const connection = await Connection.connect({ address, connectTimeout: 2000 });
            try {
              await connection.withDeadline(Date.now() + 5000, () => connection.workflowService.getSystemInfo({}));
              return 'ready';
            } finally {
              await connection.close();
            }
          } catch (err) {
            return String(err); // still starting
          }
        },
        (state) => state === 'ready' || state === 'exited',
        { describe: `the time-skipping test server on ${address} to answer`, timeoutMs: SERVER_START_TIMEOUT_MS, maxIntervalMs: 500 },
      ).then((state) => {
        if (state === 'exited') throw new Error(`exited (code ${child.exitCode}, signal ${child.signalCode})`);
      });
      return { address, stop };
    } catch (err) {
      await stop();
      const reason = err instanceof PollTimeoutError ? `not answering after ${SERVER_START_TIMEOUT_MS} ms: ${String(err.lastValue)}` : String(err);
      if (!(err instanceof PollTimeoutError) && attempt < 3) continue;
      throw new Error(`time-skipping test server ${binary} ${reason}\n${output}`);
    }
  }
}

/** Task-queue names under a fresh random prefix, so tests never share queues. */
export function uniqueTaskQueues(label = 't'): TaskQueues {
  return taskQueues(`${label}${randomBytes(4).toString('hex')}-`);
}
