-- Retention prunes finished calls oldest first; active calls (finished_at NULL) stay out of the index and cost no entry.
CREATE INDEX "tool_calls_finished_at_idx" ON "tool_calls"("finished_at") WHERE "finished_at" IS NOT NULL;
