/**
 * PO-6 object storage boundary: put/get bytes by key in one bucket. The production adapter speaks
 * the S3 API through `@aws-sdk/client-s3` (AWS S3, MinIO or any S3-compatible store); demo, tests
 * and CI run a real S3-compatible server (moto). Names no family.
 */

/** A stored object's bytes with the SHA-256 (hex) computed over the bytes read, never the store's claim. */
export interface StoredObject {
  bytes: Buffer;
  sha256: string;
}

/** Raised by {@link ObjectStore.get} when the key does not exist. */
export class ObjectNotFoundError extends Error {
  override readonly name = 'ObjectNotFoundError';
}

/** Raised when the store cannot be reached or answers a server error (an outage: retry). */
export class ObjectStoreUnavailableError extends Error {
  override readonly name = 'ObjectStoreUnavailableError';
}

/** One bucket of an S3-compatible store. */
export interface ObjectStore {
  /** Bucket name (config OBJECT_STORE_BUCKET). */
  readonly bucket: string;
  /**
   * Writes `bytes` under `key` with its SHA-256 as the S3 checksum; returns the SHA-256 (hex).
   * @throws ObjectStoreUnavailableError on an outage.
   */
  put(key: string, bytes: Buffer, contentType: string): Promise<{ sha256: string }>;
  /**
   * Reads `key` (at most `maxBytes`, default 16 MiB) and hashes what was read.
   * @throws ObjectNotFoundError, ObjectStoreUnavailableError, RangeError when larger than maxBytes.
   */
  get(key: string, maxBytes?: number): Promise<StoredObject>;
  /** Creates the bucket when missing (demo/test set-up; production buckets are provisioned). */
  ensureBucket(): Promise<void>;
}
