-- A project's event endpoint, told when a wait or background call of its agents ends (one per project).
CREATE TABLE "event_endpoints" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "secret_enc" TEXT NOT NULL,
    "retired_secrets" JSONB NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "event_endpoints_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "event_endpoints_project_id_key" ON "event_endpoints"("project_id");

-- A tool_call.finished event of one round of a call, stored with the call's terminal move; delivered like a call.
CREATE TABLE "call_events" (
    "id" TEXT NOT NULL,
    "call_id" TEXT NOT NULL,
    "round" INTEGER NOT NULL,
    "project_id" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "status" TEXT NOT NULL,
    "next_attempt_n" INTEGER,
    "next_attempt_at" TIMESTAMP(3),
    "first_attempt_at" TIMESTAMP(3),
    "attempt_deadline" TIMESTAMP(3),
    "error" JSONB,
    "created_at" TIMESTAMP(3) NOT NULL,
    "finished_at" TIMESTAMP(3),
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "call_events_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "call_events_status_check" CHECK ("status" IN ('queued', 'in_progress', 'succeeded', 'failed', 'cancelled'))
);
CREATE UNIQUE INDEX "call_events_call_id_round_key" ON "call_events"("call_id", "round");
-- The reconciler's reads, as for calls: a finished event has an entry in neither.
CREATE INDEX "call_events_queued_next_attempt_at_idx" ON "call_events"("next_attempt_at") WHERE "status" = 'queued';
CREATE INDEX "call_events_in_progress_attempt_deadline_idx" ON "call_events"("attempt_deadline") WHERE "status" = 'in_progress';
ALTER TABLE "call_events" ADD CONSTRAINT "call_events_call_id_fkey" FOREIGN KEY ("call_id") REFERENCES "tool_calls"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "call_event_attempts" (
    "id" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "n" INTEGER NOT NULL,
    "started_at" TIMESTAMP(3) NOT NULL,
    "duration_ms" INTEGER NOT NULL,
    "outcome" TEXT NOT NULL,
    "http_status" INTEGER,
    "error" TEXT,
    "response_excerpt" TEXT,

    CONSTRAINT "call_event_attempts_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "call_event_attempts_outcome_check" CHECK ("outcome" IN ('success', 'http_status', 'redirect', 'timeout', 'network', 'response_too_large', 'gone', 'blocked_address', 'tool_error', 'cancelled', 'mcp_unavailable'))
);
CREATE UNIQUE INDEX "call_event_attempts_event_id_n_key" ON "call_event_attempts"("event_id", "n");
ALTER TABLE "call_event_attempts" ADD CONSTRAINT "call_event_attempts_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "call_events"("id") ON DELETE CASCADE ON UPDATE CASCADE;
