import { readFileSync } from 'node:fs';
import { Resolver } from 'node:dns';
import { z } from 'zod';

/** Used only when AUTH_JWT_SECRET and AUTH_JWKS_URL are both unset; a loud warning says so. */
export const DEVELOPMENT_JWT_SECRET = 'toolgate-development-secret-do-not-use-in-production';
/** Used only when SECRETS_KEYS is unset; a loud warning says so. 32 bytes, base64. */
export const DEVELOPMENT_SECRETS_KEYS = 'dev:ZGV2ZWxvcG1lbnQta2V5LWRvLW5vdC11c2UtISEhISE=';

const booleanString = z
  .enum(['true', 'false', '1', '0'], { message: 'expected true or false' })
  .transform((value) => value === 'true' || value === '1');

const secretsKeys = z
  .string()
  .min(1)
  .superRefine((value, ctx) => {
    const seen = new Set<string>();
    for (const entry of value.split(',')) {
      const match = /^([A-Za-z0-9_.-]{1,64}):([A-Za-z0-9+/=_-]+)$/.exec(entry.trim());
      if (!match) {
        ctx.addIssue({ code: 'custom', message: `"${entry.trim().split(':')[0]}:…" is not kid:base64key` });
        continue;
      }
      const [, kid, key] = match;
      if (seen.has(kid)) ctx.addIssue({ code: 'custom', message: `key id "${kid}" appears twice` });
      seen.add(kid);
      if (Buffer.from(key, 'base64').length !== 32) {
        ctx.addIssue({ code: 'custom', message: `key "${kid}" must be 32 bytes of base64 (openssl rand -base64 32)` });
      }
    }
  });

// host:port list as c-ares takes it (127.0.0.1:5353, [::1]:53, 10.0.0.2); setServers says what is wrong
const dnsServers = z.string().transform((value, ctx) => {
  const servers = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  try {
    new Resolver().setServers(servers);
  } catch (error) {
    ctx.addIssue({
      code: 'custom',
      message: `expected comma-separated host:port of DNS servers (${(error as Error).message})`,
    });
    return z.NEVER;
  }
  return servers;
});

// A readable PEM file holding at least one certificate (the CA of a managed Redis).
const caFile = z.string().superRefine((path, ctx) => {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    ctx.addIssue({
      code: 'custom',
      message: `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    });
    return;
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----'))
    ctx.addIssue({ code: 'custom', message: `${path} holds no PEM certificate (-----BEGIN CERTIFICATE-----)` });
});

/** A BullMQ prefix: letters, digits, "_", ":" and "-", with at most one Redis Cluster hash tag (`{toolgate}`). */
const QUEUE_PREFIX_PATTERN = /^[A-Za-z0-9_:-]*(\{[A-Za-z0-9_:-]+\})?[A-Za-z0-9_:-]*$/;

export const EnvSchema = z
  .object({
    NODE_ENV: z.string().default('development'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, message: 'expected postgresql://…' }).optional(),
    REDIS_URL: z.url({ protocol: /^rediss?$/, message: 'expected redis://…' }).optional(),
    REDIS_TLS_CA_FILE: caFile.optional(),
    REDIS_CLUSTER: booleanString.default(false),
    AUTH_JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    AUTH_JWKS_URL: z.url({ protocol: /^https?$/ }).optional(),
    SECRETS_KEYS: secretsKeys.optional(),
    ALLOW_PRIVATE_NETWORK: booleanString.default(false),
    RETRY_TIME_SCALE: z.coerce.number().positive('must be greater than 0').max(1000).default(1),
    WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(50),
    APP_DELIVERY_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(25),
    API_DELIVERY_CONCURRENCY: z.coerce.number().int().min(0).max(1000).default(50),
    PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
    // A project's call quotas where it sets none of its own (PUT /v1/projects/{id}/limits); unset: no quota.
    DEFAULT_AGENT_CALLS_PER_MINUTE: z.coerce.number().int().min(1).optional(),
    DEFAULT_PROJECT_CALLS_PER_MINUTE: z.coerce.number().int().min(1).optional(),
    // The deadline of the MCP calls of an app that sets no mcp_call_timeout_s of its own.
    MCP_CALL_TIMEOUT_S: z.coerce.number().min(1).max(120).default(30),
    // Below the 60 s common MCP clients wait before they give up and cancel the request.
    MCP_WAIT_DEADLINE_S: z.coerce.number().min(1).max(120).default(50),
    MCP_ALLOWED_ORIGINS: z.string().optional(),
    MCP_SNAPSHOT_TTL_S: z.coerce.number().int().min(5).max(86_400).default(300),
    // Longer than the snapshot TTL: the worker's session, used at each refresh, stays open to hear list_changed.
    MCP_SESSION_IDLE_S: z.coerce.number().int().min(1).max(86_400).default(600),
    RECONCILE_INTERVAL_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
    // Longer than the longest instant call (120 s attempt + margin): only a crashed request's key waits it out.
    IDEMPOTENCY_LEASE_S: z.coerce.number().int().min(1).max(3600).default(150),
    PURGE_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
    CALL_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(30),
    AGENT_MAX_CONCURRENT_WAITS: z.coerce.number().int().min(1).max(10_000).default(20),
    WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
    WORKER_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
    // Unset: `toolgate`, or `{toolgate}` when REDIS_CLUSTER (every key in one slot, as BullMQ's scripts need).
    QUEUE_PREFIX: z
      .string()
      .max(64)
      .regex(QUEUE_PREFIX_PATTERN, 'letters, digits, "_", ":" and "-", with at most one {hash tag}')
      .optional(),
    DNS_SERVERS: dnsServers.optional(),
    DNS_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'silent']).default('info'),
  })
  .superRefine((env, ctx) => {
    if (env.REDIS_TLS_CA_FILE && env.REDIS_URL && !env.REDIS_URL.startsWith('rediss:'))
      ctx.addIssue({ code: 'custom', path: ['REDIS_TLS_CA_FILE'], message: 'needs a rediss:// REDIS_URL' });
    if (env.REDIS_CLUSTER && env.QUEUE_PREFIX !== undefined && !env.QUEUE_PREFIX.includes('{'))
      ctx.addIssue({
        code: 'custom',
        path: ['QUEUE_PREFIX'],
        message: `needs a hash tag with REDIS_CLUSTER=true (e.g. {${env.QUEUE_PREFIX}}): BullMQ's keys must share a slot`,
      });
  })
  .transform((env) => ({
    ...env,
    QUEUE_PREFIX: env.QUEUE_PREFIX ?? (env.REDIS_CLUSTER ? '{toolgate}' : 'toolgate'),
    PUBLIC_BASE_URL: (env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ''),
  }));

export type Env = z.output<typeof EnvSchema>;

export class InvalidConfigurationError extends Error {}

/** Parses the environment once; a bad value is reported with the variable's name. */
export function parseEnv(source: NodeJS.ProcessEnv): Env {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined && value !== ''));
  const result = EnvSchema.safeParse(cleaned);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join('.') || '(environment)'}: ${issue.message}`);
    throw new InvalidConfigurationError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const env = result.data;
  if (env.NODE_ENV === 'production') {
    const missing = [];
    if (!env.AUTH_JWT_SECRET && !env.AUTH_JWKS_URL) missing.push('AUTH_JWT_SECRET or AUTH_JWKS_URL');
    if (!env.SECRETS_KEYS) missing.push('SECRETS_KEYS');
    if (missing.length > 0) {
      throw new InvalidConfigurationError(
        `Invalid configuration:\n  ${missing.join(', ')}: required when NODE_ENV=production`,
      );
    }
  }
  return env;
}

/** Warnings for development defaults in use, printed loudly at start. */
export function developmentDefaultsInUse(env: Env): string[] {
  const warnings = [];
  if (!env.AUTH_JWT_SECRET && !env.AUTH_JWKS_URL) {
    warnings.push(
      'AUTH_JWT_SECRET is unset: tokens are verified with a PUBLIC development secret. Set AUTH_JWT_SECRET or AUTH_JWKS_URL.',
    );
  }
  if (!env.SECRETS_KEYS) {
    warnings.push(
      'SECRETS_KEYS is unset: secrets at rest are encrypted with a PUBLIC development key. ' +
        'Set SECRETS_KEYS=kid:$(openssl rand -base64 32).',
    );
  }
  return warnings;
}

/** Reads and validates the environment, or prints what is wrong and exits. */
export function loadEnvOrExit(source: NodeJS.ProcessEnv = process.env): Env {
  try {
    return parseEnv(source);
  } catch (error) {
    if (error instanceof InvalidConfigurationError) {
      console.error(error.message);
      process.exit(78);
    }
    throw error;
  }
}

/** Nest injection token of the parsed environment. */
export const ENV = Symbol('ENV');
