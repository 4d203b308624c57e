-- The developer's call list filtered by tool: without it a rare tool's page scans the app's every call.
CREATE INDEX "tool_calls_app_id_tool_name_id_idx" ON "tool_calls"("app_id", "tool_name", "id");
