-- Issue 10 the study family's explanation job: the async_jobs job type STUDY_EXPLANATION (the AI
-- explanation of a study question, each one a new source version of its memo cards).
-- AlterEnum
ALTER TYPE "JobType" ADD VALUE 'STUDY_EXPLANATION';
