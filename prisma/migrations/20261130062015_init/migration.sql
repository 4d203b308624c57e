-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "developers" (
    "id" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "developers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "apps" (
    "id" TEXT NOT NULL,
    "developer_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "display_name" TEXT NOT NULL,
    "embedded_page_url" TEXT,
    "developer_page_url" TEXT,
    "webhook_secret_enc" TEXT NOT NULL,
    "previous_webhook_secret_enc" TEXT,
    "previous_secret_valid_until" TIMESTAMP(3),
    "agent_tools_enabled" BOOLEAN NOT NULL DEFAULT false,
    "agent_tools_mode" TEXT NOT NULL DEFAULT 'constructor',
    "mcp_url" TEXT,
    "mcp_auth_header_name" TEXT,
    "mcp_auth_header_value_enc" TEXT,
    "mcp_snapshot_refreshed_at" TIMESTAMP(3),
    "mcp_snapshot_attempted_at" TIMESTAMP(3),
    "mcp_snapshot_error" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "apps_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "http_tools" (
    "id" TEXT NOT NULL,
    "app_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "title_ru" TEXT NOT NULL,
    "title_en" TEXT NOT NULL,
    "description_ru" TEXT NOT NULL,
    "description_en" TEXT NOT NULL,
    "response_description_ru" TEXT,
    "response_description_en" TEXT,
    "agent_description" TEXT,
    "handler_url" TEXT NOT NULL,
    "parameters" JSONB NOT NULL,
    "configurable" BOOLEAN NOT NULL DEFAULT false,
    "allow_multiple" BOOLEAN NOT NULL DEFAULT false,
    "execution_mode" TEXT NOT NULL,
    "attempt_timeout_s" INTEGER NOT NULL,
    "retry_window" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "http_tools_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "mcp_tool_snapshots" (
    "id" TEXT NOT NULL,
    "app_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "title" TEXT,
    "description" TEXT,
    "input_schema" JSONB NOT NULL,
    "output_schema" JSONB,
    "annotations" JSONB,
    "execution" JSONB,
    "available" BOOLEAN NOT NULL,
    "reason" TEXT,
    "position" INTEGER NOT NULL,
    "refreshed_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "mcp_tool_snapshots_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "installations" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "app_id" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "installations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tool_instances" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "installation_id" TEXT NOT NULL,
    "app_id" TEXT NOT NULL,
    "tool_kind" TEXT NOT NULL,
    "tool_name" TEXT NOT NULL,
    "http_tool_id" TEXT,
    "title" TEXT,
    "configuration" JSONB NOT NULL DEFAULT '{}',
    "configured_parameters" JSONB NOT NULL DEFAULT '[]',
    "private_data_enc" TEXT,
    "private_data_required" BOOLEAN NOT NULL DEFAULT false,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "tool_instances_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tool_calls" (
    "id" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "app_id" TEXT NOT NULL,
    "installation_id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "tool_instance_id" TEXT NOT NULL,
    "tool_kind" TEXT NOT NULL,
    "tool_name" TEXT NOT NULL,
    "agent_tool_name" TEXT NOT NULL,
    "dialog_id" TEXT NOT NULL,
    "lead_id" TEXT,
    "execution_mode" TEXT NOT NULL,
    "retry_window" TEXT,
    "attempt_timeout_s" INTEGER NOT NULL,
    "handler_url" TEXT,
    "arguments" JSONB NOT NULL,
    "body_enc" TEXT,
    "status" TEXT NOT NULL,
    "round" INTEGER NOT NULL DEFAULT 1,
    "next_attempt_n" INTEGER,
    "next_attempt_at" TIMESTAMP(3),
    "first_attempt_at" TIMESTAMP(3),
    "attempt_deadline" TIMESTAMP(3),
    "result" JSONB,
    "result_text" TEXT,
    "error" JSONB,
    "accepted_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMP(3),
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "tool_calls_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tool_call_attempts" (
    "id" TEXT NOT NULL,
    "call_id" TEXT NOT NULL,
    "round" INTEGER NOT NULL DEFAULT 1,
    "n" INTEGER NOT NULL,
    "started_at" TIMESTAMP(3) NOT NULL,
    "duration_ms" INTEGER NOT NULL,
    "outcome" TEXT NOT NULL,
    "http_status" INTEGER,
    "error" TEXT,
    "response_excerpt" TEXT,

    CONSTRAINT "tool_call_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "launch_codes" (
    "code_hash" TEXT NOT NULL,
    "app_id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "installation_id" TEXT NOT NULL,
    "tool_name" TEXT NOT NULL,
    "instance_id" TEXT,
    "mode" TEXT NOT NULL,
    "theme" TEXT NOT NULL,
    "language" TEXT NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "used_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "launch_codes_pkey" PRIMARY KEY ("code_hash")
);

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "agent_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "status_code" INTEGER,
    "response" JSONB,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("agent_id","key")
);

-- CreateIndex
CREATE UNIQUE INDEX "apps_name_key" ON "apps"("name");

-- CreateIndex
CREATE INDEX "apps_developer_id_id_idx" ON "apps"("developer_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "http_tools_app_id_name_key" ON "http_tools"("app_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "mcp_tool_snapshots_app_id_name_key" ON "mcp_tool_snapshots"("app_id", "name");

-- CreateIndex
CREATE INDEX "installations_app_id_idx" ON "installations"("app_id");

-- CreateIndex
CREATE UNIQUE INDEX "installations_project_id_app_id_key" ON "installations"("project_id", "app_id");

-- CreateIndex
CREATE INDEX "tool_instances_project_id_agent_id_created_at_idx" ON "tool_instances"("project_id", "agent_id", "created_at");

-- CreateIndex
CREATE INDEX "tool_instances_agent_id_created_at_idx" ON "tool_instances"("agent_id", "created_at");

-- CreateIndex
CREATE INDEX "tool_instances_http_tool_id_agent_id_idx" ON "tool_instances"("http_tool_id", "agent_id");

-- CreateIndex
CREATE INDEX "tool_instances_installation_id_idx" ON "tool_instances"("installation_id");

-- CreateIndex
CREATE UNIQUE INDEX "tool_calls_event_id_key" ON "tool_calls"("event_id");

-- CreateIndex
CREATE INDEX "tool_calls_app_id_id_idx" ON "tool_calls"("app_id", "id");

-- CreateIndex
CREATE INDEX "tool_calls_app_id_status_id_idx" ON "tool_calls"("app_id", "status", "id");

-- CreateIndex
CREATE INDEX "tool_calls_agent_id_id_idx" ON "tool_calls"("agent_id", "id");

-- CreateIndex
CREATE INDEX "tool_calls_status_next_attempt_at_idx" ON "tool_calls"("status", "next_attempt_at");

-- CreateIndex
CREATE UNIQUE INDEX "tool_call_attempts_call_id_round_n_key" ON "tool_call_attempts"("call_id", "round", "n");

-- CreateIndex
CREATE INDEX "launch_codes_expires_at_idx" ON "launch_codes"("expires_at");

-- CreateIndex
CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys"("expires_at");

-- AddForeignKey
ALTER TABLE "apps" ADD CONSTRAINT "apps_developer_id_fkey" FOREIGN KEY ("developer_id") REFERENCES "developers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "http_tools" ADD CONSTRAINT "http_tools_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "mcp_tool_snapshots" ADD CONSTRAINT "mcp_tool_snapshots_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "installations" ADD CONSTRAINT "installations_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tool_instances" ADD CONSTRAINT "tool_instances_installation_id_fkey" FOREIGN KEY ("installation_id") REFERENCES "installations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tool_instances" ADD CONSTRAINT "tool_instances_http_tool_id_fkey" FOREIGN KEY ("http_tool_id") REFERENCES "http_tools"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tool_calls" ADD CONSTRAINT "tool_calls_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tool_call_attempts" ADD CONSTRAINT "tool_call_attempts_call_id_fkey" FOREIGN KEY ("call_id") REFERENCES "tool_calls"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "launch_codes" ADD CONSTRAINT "launch_codes_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

