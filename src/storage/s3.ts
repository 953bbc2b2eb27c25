/**
 * PO-6 the {@link ObjectStore} over the S3 API (`@aws-sdk/client-s3`, pinned exactly: releases after
 * early 2027 need Node >= 22). Works with AWS S3, MinIO, moto or any S3-compatible store through
 * the configured endpoint and path-style addressing. A put sends the SHA-256 of the bytes as the
 * S3 checksum (a store that checks it rejects a corrupted upload); a get hashes the bytes it read
 * and never trusts the store's checksum claim (moto does not check client checksums, and a
 * multipart checksum is a composite, not the object's SHA-256). Names no family.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  CreateBucketCommand,
  GetObjectCommand,
  HeadBucketCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import type { CoreConfig as Config } from '../config';
import { ObjectNotFoundError, ObjectStoreUnavailableError, type ObjectStore, type StoredObject } from './object-store';

/** Default bound of {@link S3ObjectStore.get}: 16 MiB. */
export const DEFAULT_MAX_OBJECT_BYTES = 16 * 1024 * 1024;

/** Options of {@link createS3ObjectStore} beyond the config section. */
export interface S3ObjectStoreOptions {
  /** Per-request socket timeout, ms (default 15 000). */
  requestTimeoutMs?: number;
  /** Connection timeout, ms (default 5 000). */
  connectionTimeoutMs?: number;
  /** SDK-level attempts per call (default 2; Temporal owns the retries above that). */
  maxAttempts?: number;
}

/** Node network errors meaning "the store is not reachable right now". */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
const NETWORK_CODE_IN_TEXT = new RegExp(`\\b(${[...NETWORK_CODES].join('|')})\\b`);
const OUTAGE_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException', 'SlowDown', 'ServiceUnavailable', 'InternalError', 'ThrottlingException']);

function errCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = e?.code ?? e?.cause?.code;
  return typeof code === 'string' ? code : undefined;
}

/** True when `err` from the SDK is an outage (network, timeout, 5xx, throttling): retry later. */
export function isObjectStoreOutage(err: unknown): boolean {
  if (err instanceof S3ServiceException) {
    const status = err.$metadata?.httpStatusCode ?? 0;
    return status >= 500 || status === 429 || OUTAGE_NAMES.has(err.name);
  }
  const name = (err as { name?: unknown } | null)?.name;
  if (typeof name === 'string' && OUTAGE_NAMES.has(name)) return true;
  const code = errCode(err);
  if (code !== undefined) return NETWORK_CODES.has(code);
  // A Node error from another realm (e.g. a jest sandbox) reaches us re-wrapped by the SDK's retry
  // middleware as "AWS SDK error wrapper for Error: connect ECONNREFUSED …": its code is only in the text.
  const message = err instanceof Error ? err.message : '';
  return NETWORK_CODE_IN_TEXT.test(message);
}

/** A missing key (GetObject `NoSuchKey`, Head `NotFound`); `NoSuchBucket` is a configuration error, not this. */
function isNotFound(err: unknown): boolean {
  return err instanceof S3ServiceException && (err.name === 'NoSuchKey' || err.name === 'NotFound');
}

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

/** Reads a response body stream up to `maxBytes`, hashing as it goes. @throws RangeError past the bound. */
async function readBounded(body: Readable | AsyncIterable<Uint8Array>, maxBytes: number, key: string): Promise<StoredObject> {
  const hash = createHash('sha256');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      (body as Partial<Readable>).destroy?.();
      throw new RangeError(`object ${key} is larger than ${maxBytes} bytes`);
    }
    const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    hash.update(buf);
    chunks.push(buf);
  }
  return { bytes: Buffer.concat(chunks, size), sha256: hash.digest('hex') };
}

/** {@link ObjectStore} over one bucket of an S3-compatible store. */
export class S3ObjectStore implements ObjectStore {
  constructor(
    private readonly client: S3Client,
    readonly bucket: string,
  ) {}

  /** Writes `bytes` with `ChecksumSHA256`; returns the SHA-256 (hex). @throws ObjectStoreUnavailableError on an outage. */
  async put(key: string, bytes: Buffer, contentType: string): Promise<{ sha256: string }> {
    const digest = createHash('sha256').update(bytes).digest();
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Body: bytes,
          ContentType: contentType,
          ContentLength: bytes.byteLength,
          ChecksumAlgorithm: 'SHA256',
          ChecksumSHA256: digest.toString('base64'),
        }),
      );
    } catch (err) {
      if (isObjectStoreOutage(err)) throw new ObjectStoreUnavailableError(`object store put ${this.bucket}/${key}: ${describe(err)}`, { cause: err });
      throw err;
    }
    return { sha256: digest.toString('hex') };
  }

  /**
   * Reads `key` (at most `maxBytes`) and hashes the bytes read.
   * @throws ObjectNotFoundError, ObjectStoreUnavailableError, RangeError when larger than maxBytes;
   *   other SDK errors (access denied, no such bucket) as they are.
   */
  async get(key: string, maxBytes = DEFAULT_MAX_OBJECT_BYTES): Promise<StoredObject> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      if (!out.Body) throw new ObjectNotFoundError(`object ${this.bucket}/${key} has no body`);
      if (out.ContentLength !== undefined && out.ContentLength > maxBytes) {
        (out.Body as Partial<Readable>).destroy?.();
        throw new RangeError(`object ${key} is ${out.ContentLength} bytes, more than ${maxBytes}`);
      }
      return await readBounded(out.Body as Readable, maxBytes, key);
    } catch (err) {
      if (err instanceof ObjectNotFoundError || err instanceof RangeError) throw err;
      if (isNotFound(err)) throw new ObjectNotFoundError(`object ${this.bucket}/${key} does not exist`, { cause: err });
      if (isObjectStoreOutage(err)) throw new ObjectStoreUnavailableError(`object store get ${this.bucket}/${key}: ${describe(err)}`, { cause: err });
      throw err;
    }
  }

  /** Creates the bucket when missing; safe to race. @throws ObjectStoreUnavailableError on an outage. */
  async ensureBucket(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
      return;
    } catch (err) {
      if (isObjectStoreOutage(err)) throw new ObjectStoreUnavailableError(`object store head bucket ${this.bucket}: ${describe(err)}`, { cause: err });
      if (!isNotFound(err)) throw err;
    }
    try {
      await this.client.send(new CreateBucketCommand({ Bucket: this.bucket }));
    } catch (err) {
      const name = (err as { name?: string }).name;
      if (name === 'BucketAlreadyOwnedByYou' || name === 'BucketAlreadyExists') return;
      if (isObjectStoreOutage(err)) throw new ObjectStoreUnavailableError(`object store create bucket ${this.bucket}: ${describe(err)}`, { cause: err });
      throw err;
    }
  }

  /** Closes the client's sockets. */
  close(): void {
    this.client.destroy();
  }
}

/**
 * Builds the store from `config.objectStore` (OBJECT_STORE_*): endpoint (absent → AWS), region,
 * bucket, path-style addressing, static credentials when both are set (else the SDK's default
 * chain: env, profile, instance role).
 */
export function createS3ObjectStore(cfg: Config['objectStore'], opts: S3ObjectStoreOptions = {}): S3ObjectStore {
  // The SDK is pinned exactly (package.json), so its notice that *later* releases need Node >= 22
  // says nothing about this build; an operator can still turn it back on by setting the variable.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const clientConfig: S3ClientConfig = {
    region: cfg.region,
    forcePathStyle: cfg.forcePathStyle,
    maxAttempts: opts.maxAttempts ?? 2,
    requestHandler: { requestTimeout: opts.requestTimeoutMs ?? 15_000, connectionTimeout: opts.connectionTimeoutMs ?? 5_000 },
    // The SHA-256 is given explicitly on put; no extra CRC on every request, nor a validation of the
    // store's claim on get (we hash what we read).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
  if (cfg.endpoint) clientConfig.endpoint = cfg.endpoint;
  if (cfg.accessKeyId && cfg.secretAccessKey) {
    clientConfig.credentials = { accessKeyId: cfg.accessKeyId, secretAccessKey: cfg.secretAccessKey };
  }
  return new S3ObjectStore(new S3Client(clientConfig), cfg.bucket);
}
