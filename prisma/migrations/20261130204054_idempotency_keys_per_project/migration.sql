-- Idempotency keys belong to one agent of one project: agent ids repeat across projects.
ALTER TABLE "idempotency_keys" ADD COLUMN "project_id" TEXT;

-- A stored answer names its call, and the call its project; a reservation still pending has no call yet.
UPDATE "idempotency_keys" AS k SET "project_id" = c."project_id"
FROM "tool_calls" AS c
WHERE c."id" = k."response"->>'call_id' AND c."agent_id" = k."agent_id";

DELETE FROM "idempotency_keys" WHERE "project_id" IS NULL;

ALTER TABLE "idempotency_keys" ALTER COLUMN "project_id" SET NOT NULL;

ALTER TABLE "idempotency_keys" DROP CONSTRAINT "idempotency_keys_pkey";

ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("project_id", "agent_id", "key");
