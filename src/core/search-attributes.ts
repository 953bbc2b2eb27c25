/** DC-4 registration of the job search attributes on a namespace (operator API); for processes, not workflows. */
import { isGrpcServiceError, type ConnectionLike } from '@temporalio/client';
import { SA_COMPANY_ID, SA_JOB_TYPE, SA_TARGET_ID, SA_USER_ID } from './contracts';

const GRPC_ALREADY_EXISTS = 6;
/** `temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD`. */
const INDEXED_VALUE_TYPE_KEYWORD = 2;

/** Anything with an operator service: a `Connection`, or a `Client`'s `connection`. */
export type OperatorConnection = Pick<ConnectionLike, 'operatorService'>;

/**
 * Registers the DC-4 search attributes (JobType, TargetId, UserId, CompanyId; Keyword) on `namespace` when
 * missing. Idempotent and safe to race with another process. Returns the names it added.
 * @throws Error when one of them exists with another type, or on any other operator-API failure.
 */
export async function ensureSearchAttributes(connection: OperatorConnection, namespace: string): Promise<string[]> {
  const wanted = [SA_JOB_TYPE, SA_TARGET_ID, SA_USER_ID, SA_COMPANY_ID].map((k) => k.name);
  const missing = await missingSearchAttributes(connection, namespace, wanted);
  if (missing.length === 0) return [];
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((name) => [name, INDEXED_VALUE_TYPE_KEYWORD])),
    });
  } catch (err) {
    if (!(isGrpcServiceError(err) && err.code === GRPC_ALREADY_EXISTS)) throw err;
  }
  const still = await missingSearchAttributes(connection, namespace, wanted);
  if (still.length > 0) throw new Error(`search attributes not registered on ${namespace}: ${still.join(', ')}`);
  return missing;
}

async function missingSearchAttributes(connection: OperatorConnection, namespace: string, names: string[]): Promise<string[]> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing: string[] = [];
  for (const name of names) {
    const type = customAttributes?.[name];
    if (type === undefined || type === null) missing.push(name);
    else if (Number(type) !== INDEXED_VALUE_TYPE_KEYWORD) {
      throw new Error(`search attribute ${name} exists on ${namespace} with type ${String(type)}, expected Keyword`);
    }
  }
  return missing;
}
