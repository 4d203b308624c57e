-- Limits that hold across the fleet (API.md "Limits across the fleet"), counted in Redis.
-- An app's delivery limits: its handlers' and MCP server's open requests, and requests started per second.
ALTER TABLE "apps" ADD COLUMN "delivery_max_in_flight" INTEGER;
ALTER TABLE "apps" ADD COLUMN "delivery_max_per_second" INTEGER;
ALTER TABLE "apps" ADD CONSTRAINT "apps_delivery_max_in_flight_check"
    CHECK ("delivery_max_in_flight" IS NULL OR "delivery_max_in_flight" BETWEEN 1 AND 1000);
ALTER TABLE "apps" ADD CONSTRAINT "apps_delivery_max_per_second_check"
    CHECK ("delivery_max_per_second" IS NULL OR "delivery_max_per_second" BETWEEN 1 AND 10000);

-- A project's call quotas (a sliding minute); a null quota falls back to DEFAULT_*_CALLS_PER_MINUTE.
CREATE TABLE "project_limits" (
    "project_id" TEXT NOT NULL,
    "agent_calls_per_minute" INTEGER,
    "project_calls_per_minute" INTEGER,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "project_limits_pkey" PRIMARY KEY ("project_id"),
    CONSTRAINT "project_limits_agent_calls_per_minute_check"
        CHECK ("agent_calls_per_minute" IS NULL OR "agent_calls_per_minute" >= 1),
    CONSTRAINT "project_limits_project_calls_per_minute_check"
        CHECK ("project_calls_per_minute" IS NULL OR "project_calls_per_minute" >= 1)
);
