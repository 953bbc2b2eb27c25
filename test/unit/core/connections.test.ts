/** TEMPORAL_TLS* and TEMPORAL_API_KEY: parsed by the core's config section (src/config/core.ts), turned into connection options by src/core/connections.ts. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../src/families';
import { temporalConnectionOptions } from '../../../src/core/connections';

const base = { NODE_ENV: 'test', TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233' };
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'tls-'));
  for (const f of ['ca.pem', 'client.pem', 'client.key']) writeFileSync(path.join(dir, f), `-----BEGIN ${f}-----\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('connects in plain text with no TLS setting', () => {
  expect(temporalConnectionOptions(loadConfig(base))).toEqual({ address: base.TEMPORAL_ADDRESS });
});

it('turns TLS on for an API key (Temporal Cloud) and sends the key', () => {
  expect(temporalConnectionOptions(loadConfig({ ...base, TEMPORAL_API_KEY: 'key-123' }))).toEqual({ address: base.TEMPORAL_ADDRESS, apiKey: 'key-123', tls: {} });
});

it('reads the CA, the client certificate pair and the server name for mTLS', () => {
  const o = temporalConnectionOptions(loadConfig({
    ...base,
    TEMPORAL_TLS_CA_FILE: path.join(dir, 'ca.pem'),
    TEMPORAL_TLS_CERT_FILE: path.join(dir, 'client.pem'),
    TEMPORAL_TLS_KEY_FILE: path.join(dir, 'client.key'),
    TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
  }));
  expect(o.tls).toEqual({
    serverRootCACertificate: Buffer.from('-----BEGIN ca.pem-----\n'),
    clientCertPair: { crt: Buffer.from('-----BEGIN client.pem-----\n'), key: Buffer.from('-----BEGIN client.key-----\n') },
    serverNameOverride: 'temporal.internal',
  });
});

it('refuses contradictory or half settings at start-up, naming the variables', () => {
  expect(() => loadConfig({ ...base, TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'k' })).toThrow(/TEMPORAL_TLS/);
  expect(() => loadConfig({ ...base, TEMPORAL_TLS_CERT_FILE: '/x.pem' })).toThrow(/TEMPORAL_TLS_CERT_FILE \/ TEMPORAL_TLS_KEY_FILE/);
  expect(() => loadConfig({ ...base, TEMPORAL_TLS: 'maybe' })).toThrow(/TEMPORAL_TLS/);
});

it('names a TLS file it cannot read', () => {
  expect(() => temporalConnectionOptions(loadConfig({ ...base, TEMPORAL_TLS_CA_FILE: path.join(dir, 'missing.pem') }))).toThrow(/missing\.pem/);
});
