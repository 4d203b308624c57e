-- What an installation's agents see of each tool, as its project last approved it (decision 032), and whether a
-- change waits for that approval ('ask', the default) or reaches the agents at once ('auto').
ALTER TABLE "installations" ADD COLUMN "approve_changes" TEXT NOT NULL DEFAULT 'ask',
    ADD CONSTRAINT "installations_approve_changes_check" CHECK ("approve_changes" IN ('ask', 'auto'));

-- CreateTable
CREATE TABLE "approved_tool_definitions" (
    "installation_id" TEXT NOT NULL,
    "tool_kind" TEXT NOT NULL,
    "tool_name" TEXT NOT NULL,
    "definition" JSONB NOT NULL,
    "approved_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "approved_tool_definitions_pkey" PRIMARY KEY ("installation_id","tool_kind","tool_name")
);

-- AddForeignKey
ALTER TABLE "approved_tool_definitions" ADD CONSTRAINT "approved_tool_definitions_installation_id_fkey" FOREIGN KEY ("installation_id") REFERENCES "installations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The installations made before: their agents saw the tools as they are now, so that is what they approved (the
-- same definitions as libs/domain/src/approvals/tool-definition.ts builds).
INSERT INTO "approved_tool_definitions" ("installation_id", "tool_kind", "tool_name", "definition")
SELECT n."id", 'http', h."name", jsonb_build_object(
    'name', h."name",
    'description', jsonb_build_object('ru', h."description_ru", 'en', h."description_en"),
    'agent_description', h."agent_description",
    'parameters', h."parameters")
FROM "installations" n JOIN "http_tools" h ON h."app_id" = n."app_id";

INSERT INTO "approved_tool_definitions" ("installation_id", "tool_kind", "tool_name", "definition")
SELECT n."id", 'mcp', s."name", jsonb_build_object(
    'name', s."name", 'title', s."title", 'description', s."description", 'input_schema', s."input_schema")
FROM "installations" n
JOIN (SELECT DISTINCT ON ("app_id", "name") * FROM "mcp_tool_snapshots" ORDER BY "app_id", "name", "position") s
    ON s."app_id" = n."app_id";
