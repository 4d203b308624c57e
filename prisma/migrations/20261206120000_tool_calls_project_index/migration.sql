-- A project's call log reads its calls newest first.
CREATE INDEX "tool_calls_project_id_id_idx" ON "tool_calls"("project_id", "id");
