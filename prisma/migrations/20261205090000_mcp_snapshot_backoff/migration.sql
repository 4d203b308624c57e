-- A snapshot refresh that keeps failing is tried again later and later (exponential back-off, capped), not at every
-- run of the worker: how many failed in a row, and when the next one is due (null while refreshes succeed).
ALTER TABLE "apps" ADD COLUMN "mcp_snapshot_failures" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN "mcp_snapshot_retry_at" TIMESTAMP(3);
