/** zod schemas shared by routes; they drive validation, serialisation and the OpenAPI document. */
import { z } from 'zod';
import { JobType } from '@prisma/client';
import { JOB_RESULT_CODES, JOB_STATUSES } from '../core/contracts';

/** A UUID path parameter; anything else is a 400 VALIDATION_FAILED, never a database error. */
export const Uuid = z.uuid({ message: 'must be a UUID' });

/** SAN-5 job status document. */
export const AsyncJobSchema = z
  .object({
    jobId: z.uuid(),
    jobType: z.enum(JobType),
    targetId: z.uuid(),
    status: z.enum(JOB_STATUSES),
    errorMessage: z.string().nullable(),
    resultCode: z
      .enum(JOB_RESULT_CODES)
      .nullable()
      .describe('why a COMPLETED job applied no result: SUPERSEDED when its target was changed (by hand) after the job was enqueued, so nothing was written; null otherwise'),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'AsyncJob' });
