-- A delivery goes to a registered endpoint or to a per-request URL, exactly one of the two:
-- written so by the terminal-status trigger and by redelivery, and from this release also refused
-- by the database. Prisma's schema does not model CHECK constraints, so this one lives in the
-- migrations only (the schema engine describes it and leaves it out of its diff).
-- Added NOT VALID, then validated: the ADD takes its lock without scanning the table, and the
-- VALIDATE scans it under a lock that lets reads and writes go on.
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_destination_check"
  CHECK (num_nonnulls("endpoint_id", "target_id") = 1) NOT VALID;

ALTER TABLE "webhook_deliveries" VALIDATE CONSTRAINT "webhook_deliveries_destination_check";
