/** PO-6 the S3 object store against the real S3-compatible server (moto) that globalSetup starts. */
import { createHash, randomUUID } from 'node:crypto';
import { HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { LOCAL_OBJECT_STORE_CREDENTIALS } from '../../../src/dev/object-store-server';
import { ObjectNotFoundError, ObjectStoreUnavailableError } from '../../../src/storage/object-store';
import { createS3ObjectStore, isObjectStoreOutage } from '../../../src/storage/s3';
import { getFreePort } from '../../../src/dev/temporal-server';
import { testObjectStore, testObjectStoreConfig } from '../../support/object-store';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('S3ObjectStore (moto)', () => {
  const store = testObjectStore();
  const cfg = testObjectStoreConfig();
  const raw = new S3Client({
    endpoint: cfg.endpoint!,
    region: cfg.region,
    forcePathStyle: true,
    credentials: LOCAL_OBJECT_STORE_CREDENTIALS,
  });
  afterAll(() => {
    store.close();
    raw.destroy();
  });

  it('puts bytes with their SHA-256 as the S3 checksum and gets them back hashed', async () => {
    const key = `portal-results/${randomUUID()}/1.json`;
    const bytes = Buffer.from(JSON.stringify({ student_id: '20201234', name: '김수원 😀' }), 'utf8');
    const put = await store.put(key, bytes, 'application/json');
    expect(put.sha256).toBe(sha256(bytes));

    const head = await raw.send(new HeadObjectCommand({ Bucket: store.bucket, Key: key, ChecksumMode: 'ENABLED' }));
    expect(head.ChecksumSHA256).toBe(createHash('sha256').update(bytes).digest('base64'));
    expect(head.ContentType).toBe('application/json');

    const got = await store.get(key);
    expect(got.bytes.equals(bytes)).toBe(true);
    expect(got.sha256).toBe(put.sha256);
  });

  it('hashes what it read, not what the store claims: a stored checksum for other bytes is not believed', async () => {
    const key = `portal-results/${randomUUID()}/1.json`;
    const bytes = Buffer.from('{"a":1}');
    const claimed = createHash('sha256').update('something else').digest('base64');
    await raw.send(new PutObjectCommand({ Bucket: store.bucket, Key: key, Body: bytes, ChecksumSHA256: claimed }));
    const got = await store.get(key);
    expect(got.sha256).toBe(sha256(bytes));
  });

  it('an overwrite of the same key (a retried attempt) leaves the latest bytes', async () => {
    const key = `portal-results/${randomUUID()}/2.json`;
    await store.put(key, Buffer.from('first'), 'application/json');
    await store.put(key, Buffer.from('second'), 'application/json');
    expect((await store.get(key)).bytes.toString()).toBe('second');
  });

  it('a missing key is ObjectNotFoundError', async () => {
    await expect(store.get(`portal-results/${randomUUID()}/1.json`)).rejects.toBeInstanceOf(ObjectNotFoundError);
  });

  it('an object larger than maxBytes is a RangeError, nothing returned', async () => {
    const key = `portal-results/${randomUUID()}/1.json`;
    await store.put(key, Buffer.alloc(4096, 0x61), 'application/json');
    await expect(store.get(key, 1024)).rejects.toBeInstanceOf(RangeError);
    expect((await store.get(key, 4096)).bytes.byteLength).toBe(4096);
  });

  it('ensureBucket creates a missing bucket and is idempotent', async () => {
    const other = createS3ObjectStore(testObjectStoreConfig({ OBJECT_STORE_BUCKET: `b-${randomUUID().slice(0, 8)}` }));
    try {
      await expect(other.get('x')).rejects.not.toBeInstanceOf(ObjectNotFoundError); // NoSuchBucket is not a missing key
      await other.ensureBucket();
      await other.ensureBucket();
      await other.put('x', Buffer.from('y'), 'text/plain');
      expect((await other.get('x')).bytes.toString()).toBe('y');
    } finally {
      other.close();
    }
  });

  it('an unreachable store is ObjectStoreUnavailableError (an outage, retried by the caller)', async () => {
    const port = await getFreePort();
    const down = createS3ObjectStore(testObjectStoreConfig({ OBJECT_STORE_ENDPOINT: `http://127.0.0.1:${port}` }), { maxAttempts: 1 });
    try {
      const err: unknown = await down.get('k').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ObjectStoreUnavailableError);
      expect(isObjectStoreOutage((err as Error).cause)).toBe(true);
      await expect(down.put('k', Buffer.from('v'), 'text/plain')).rejects.toBeInstanceOf(ObjectStoreUnavailableError);
    } finally {
      down.close();
    }
  });
});
