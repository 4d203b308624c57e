-- The reconciler looks for queued calls past their due time and attempts past their deadline: each on an index of
-- the calls in that state only. A finished call (nearly every row of a table that keeps 30 days) has an entry in
-- neither, and a call's last move (to succeeded, failed or cancelled) writes no entry in them.
DROP INDEX "tool_calls_status_next_attempt_at_idx";
CREATE INDEX "tool_calls_queued_next_attempt_at_idx" ON "tool_calls"("next_attempt_at") WHERE "status" = 'queued';
CREATE INDEX "tool_calls_in_progress_attempt_deadline_idx" ON "tool_calls"("attempt_deadline") WHERE "status" = 'in_progress';
