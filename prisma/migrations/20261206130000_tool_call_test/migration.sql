-- A developer's test call of its own tool (POST /v1/apps/{app_id}/tools/{tool_name}/test-calls): no project, agent
-- or installation behind it; shown in the developer's call history with `test: true`.
ALTER TABLE "tool_calls" ADD COLUMN "test" BOOLEAN NOT NULL DEFAULT false;
