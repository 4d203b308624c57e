-- Every secret replaced within the last 24 h keeps signing, not only the last one.
ALTER TABLE "apps" ADD COLUMN "retired_webhook_secrets" JSONB NOT NULL DEFAULT '[]';

UPDATE "apps"
SET "retired_webhook_secrets" = jsonb_build_array(jsonb_build_object(
    'secret_enc', "previous_webhook_secret_enc",
    'valid_until', to_char("previous_secret_valid_until", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
WHERE "previous_webhook_secret_enc" IS NOT NULL AND "previous_secret_valid_until" > (now() AT TIME ZONE 'UTC');

ALTER TABLE "apps" DROP COLUMN "previous_webhook_secret_enc", DROP COLUMN "previous_secret_valid_until";
