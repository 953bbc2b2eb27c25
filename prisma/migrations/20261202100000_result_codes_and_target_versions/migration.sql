-- Machine writes are compare-and-sets on the version of the human-editable target they started
-- from, and a job that applied no result says why: async_jobs records the version of its target at
-- enqueue and a result code (SUPERSEDED), study questions count the revisions of their explanation,
-- and portal link jobs record a result code (STALE_RESULT_IGNORED, PO-9).
-- AlterTable
ALTER TABLE "async_jobs" ADD COLUMN     "result_code" TEXT,
ADD COLUMN     "target_version" INTEGER;

-- AlterTable
ALTER TABLE "portal_link_jobs" ADD COLUMN     "result_code" TEXT;

-- AlterTable
ALTER TABLE "study_questions" ADD COLUMN     "explanation_revision" INTEGER NOT NULL DEFAULT 0;
