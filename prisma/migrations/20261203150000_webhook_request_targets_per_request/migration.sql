-- Several create requests may name a URL for one resource (two POST /scraps requests that land on
-- one active async job): each keeps its own webhook_request_targets row, so (source, resource_id)
-- is no longer unique. The terminal-status trigger already writes one delivery per matching row
-- and looks them up by this index.
-- DropIndex
DROP INDEX "webhook_request_targets_source_resource_id_key";

-- CreateIndex
CREATE INDEX "webhook_request_targets_source_resource_id_idx" ON "webhook_request_targets"("source", "resource_id");
