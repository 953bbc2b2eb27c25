-- CreateEnum
CREATE TYPE "QuizType" AS ENUM ('OX', 'SHORT_ANSWER');

-- CreateTable
CREATE TABLE "daily_summaries" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "target_date" DATE NOT NULL,
    "title" TEXT,
    "til_markdown" TEXT,
    "embedding" BYTEA,
    "source_card_ids" UUID[] DEFAULT ARRAY[]::UUID[],
    "generated_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "daily_summaries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "github_accounts" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "login" TEXT,
    "token_encrypted" TEXT NOT NULL,
    "key_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "github_accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "github_repositories" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "owner" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "branch" TEXT NOT NULL,
    "directory" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "github_repositories_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "til_github_commits" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "summary_id" UUID NOT NULL,
    "content_hash" CHAR(64) NOT NULL,
    "repo_owner" TEXT NOT NULL,
    "repo_name" TEXT NOT NULL,
    "branch" TEXT NOT NULL,
    "file_path" TEXT NOT NULL,
    "status" "JobStatus" NOT NULL DEFAULT 'PENDING',
    "commit_sha" TEXT,
    "html_url" TEXT,
    "error_message" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "til_github_commits_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "recall_quiz_generations" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "target_date" DATE NOT NULL,
    "quiz_types" "QuizType"[],
    "summary_id" UUID,
    "status" "JobStatus" NOT NULL DEFAULT 'PENDING',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "recall_quiz_generations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "recall_quizzes" (
    "id" UUID NOT NULL,
    "generation_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "type" "QuizType" NOT NULL,
    "question" TEXT NOT NULL,
    "answer" TEXT NOT NULL,
    "explanation" TEXT NOT NULL,
    "source_card_id" UUID NOT NULL,

    CONSTRAINT "recall_quizzes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "github_star_recommendations" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "job_id" UUID NOT NULL,
    "starred_count" INTEGER NOT NULL,
    "items" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "github_star_recommendations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "daily_summaries_user_id_target_date_key" ON "daily_summaries"("user_id", "target_date");

-- CreateIndex
CREATE UNIQUE INDEX "github_accounts_user_id_key" ON "github_accounts"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "github_repositories_user_id_key" ON "github_repositories"("user_id");

-- CreateIndex
CREATE INDEX "til_github_commits_summary_id_idx" ON "til_github_commits"("summary_id");

-- CreateIndex
CREATE INDEX "recall_quiz_generations_user_id_target_date_idx" ON "recall_quiz_generations"("user_id", "target_date");

-- CreateIndex
CREATE UNIQUE INDEX "recall_quizzes_generation_id_position_key" ON "recall_quizzes"("generation_id", "position");

-- CreateIndex
CREATE UNIQUE INDEX "github_star_recommendations_job_id_key" ON "github_star_recommendations"("job_id");

-- CreateIndex
CREATE INDEX "github_star_recommendations_user_id_created_at_idx" ON "github_star_recommendations"("user_id", "created_at");

-- AddForeignKey
ALTER TABLE "recall_quizzes" ADD CONSTRAINT "recall_quizzes_generation_id_fkey" FOREIGN KEY ("generation_id") REFERENCES "recall_quiz_generations"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- SAN-10: no second commit of the same content while one is PENDING, PROCESSING or COMPLETED.
CREATE UNIQUE INDEX "til_github_commits_live_content"
  ON "til_github_commits" ("user_id", "content_hash")
  WHERE "status" IN ('PENDING', 'PROCESSING', 'COMPLETED');

-- SAN-10: two live commits never target the same file of the same repository branch.
CREATE UNIQUE INDEX "til_github_commits_live_path"
  ON "til_github_commits" ("repo_owner", "repo_name", "branch", "file_path")
  WHERE "status" IN ('PENDING', 'PROCESSING', 'COMPLETED');
