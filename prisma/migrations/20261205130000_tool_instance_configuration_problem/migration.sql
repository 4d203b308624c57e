-- Why an instance's configured parameters no longer fit its tool's parameters (set when the tool's parameters change,
-- cleared when the instance is configured again); while set, the instance needs configuration and is not offered.
ALTER TABLE "tool_instances" ADD COLUMN "configuration_problem" TEXT;
