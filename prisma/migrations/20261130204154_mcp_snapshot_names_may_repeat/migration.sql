-- A server may list one name twice: every copy is kept in the snapshot (all unavailable).
DROP INDEX "mcp_tool_snapshots_app_id_name_key";

CREATE INDEX "mcp_tool_snapshots_app_id_name_idx" ON "mcp_tool_snapshots"("app_id", "name");
