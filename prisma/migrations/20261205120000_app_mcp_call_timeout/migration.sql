-- An MCP app sets the deadline of its own calls: null follows the deployment's MCP_CALL_TIMEOUT_S (30 s by default).
ALTER TABLE "apps" ADD COLUMN "mcp_call_timeout_s" INTEGER,
ADD CONSTRAINT "apps_mcp_call_timeout_s_check" CHECK ("mcp_call_timeout_s" BETWEEN 1 AND 120);
