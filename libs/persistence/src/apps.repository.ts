import { Injectable } from '@nestjs/common';
import { type App, Prisma } from './generated/client.js';
import { type Page, type PageRequest, toPage } from './page.js';
import { DatabasePool, type Statement } from './database-pool.js';
import { PrismaService } from './prisma.service.js';
import { APP_COLUMNS, selectList } from './sql-columns.js';

export type NewApp = Pick<App, 'id' | 'name' | 'displayName' | 'webhookSecretEnc'>;

/** A webhook secret replaced by a rotation, signing until `valid_until` (ISO 8601). */
// A type (not an interface), so that it is a JSON value: the column's Json casts to it directly.
export type RetiredWebhookSecret = {
  secret_enc: string;
  valid_until: string;
};

/** The app of a call, read at each of its attempts. */
const GET_BY_ID: Statement = {
  name: 'apps_get_by_id',
  text: `SELECT ${selectList(APP_COLUMNS)} FROM apps WHERE id = $1`,
};

/** An app's delivery limits, read by every process that sends to it (DeliveryLimits caches them a moment). */
const GET_DELIVERY_LIMITS: Statement = {
  name: 'apps_get_delivery_limits',
  text: `SELECT delivery_max_in_flight AS "maxInFlight", delivery_max_per_second AS "maxPerSecond" FROM apps
    WHERE id = $1`,
};

/** Apps, always looked up by their owner first: another developer's app is simply not found. */
@Injectable()
export class AppsRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly db: DatabasePool,
  ) {}

  async create(developerId: string, app: NewApp): Promise<App> {
    return this.prisma.$transaction(async (tx) => {
      // INSERT … ON CONFLICT DO NOTHING: an upsert reads, then inserts, and two first apps of a new developer made at
      // once would collide on the developer's row (a unique violation, taken for a taken app name).
      await tx.developer.createMany({ data: [{ id: developerId }], skipDuplicates: true });
      return tx.app.create({ data: { ...app, developerId } });
    });
  }

  async list(developerId: string, page: PageRequest): Promise<Page<App>> {
    const rows = await this.prisma.app.findMany({
      where: { developerId, ...(page.after ? { id: { gt: page.after } } : {}) },
      orderBy: { id: 'asc' },
      take: page.limit + 1,
    });
    return toPage(rows, page.limit);
  }

  async get(developerId: string, appId: string): Promise<App | null> {
    return this.prisma.app.findFirst({ where: { id: appId, developerId } });
  }

  /** Updates an app the developer owns; null when there is none. */
  async update(developerId: string, appId: string, data: Prisma.AppUpdateManyMutationInput): Promise<App | null> {
    const { count } = await this.prisma.app.updateMany({ where: { id: appId, developerId }, data });
    return count === 0 ? null : this.get(developerId, appId);
  }

  /**
   * Makes `secretEnc` the app's webhook secret and retires the current one until `validUntil`, in
   * one statement: of rotations at the same time each retires the secret the one before it made,
   * so every secret handed out signs. Retired secrets past their time are dropped; while
   * `maxRetired` still sign, nothing changes (`rotated: false`). Null when the developer has no such app.
   */
  async rotateWebhookSecret(
    developerId: string,
    appId: string,
    secretEnc: string,
    now: Date,
    validUntil: Date,
    maxRetired: number,
  ): Promise<{ rotated: boolean; retired: RetiredWebhookSecret[] } | null> {
    const stillValid = Prisma.sql`FROM jsonb_array_elements(apps.retired_webhook_secrets) s
      WHERE (s->>'valid_until')::timestamptz > ${now.toISOString()}::timestamptz`;
    const rows = await this.prisma.$queryRaw<{ retired: RetiredWebhookSecret[] }[]>`
      UPDATE apps SET
        retired_webhook_secrets = (SELECT COALESCE(jsonb_agg(s ORDER BY s->>'valid_until'), '[]'::jsonb) ${stillValid})
          || jsonb_build_array(jsonb_build_object('secret_enc', apps.webhook_secret_enc, 'valid_until', ${validUntil.toISOString()}::text)),
        webhook_secret_enc = ${secretEnc},
        updated_at = now() AT TIME ZONE 'UTC'
      WHERE id = ${appId} AND developer_id = ${developerId} AND (SELECT count(*) ${stillValid}) < ${maxRetired}
      RETURNING retired_webhook_secrets AS retired`;
    if (rows.length > 0) return { rotated: true, retired: rows[0].retired };
    const app = await this.get(developerId, appId);
    if (!app) return null;
    const retired = app.retiredWebhookSecrets as RetiredWebhookSecret[];
    return { rotated: false, retired: retired.filter((secret) => new Date(secret.valid_until) > now) };
  }

  /** Deletes an app with its tools, installations, instances and calls; false when there was none. */
  async delete(developerId: string, appId: string): Promise<boolean> {
    const { count } = await this.prisma.app.deleteMany({ where: { id: appId, developerId } });
    return count > 0;
  }

  /** Whether an app exists, whoever owns it (projects install apps of any developer). */
  async exists(appId: string): Promise<boolean> {
    return (await this.prisma.app.count({ where: { id: appId } })) > 0;
  }

  async getById(appId: string): Promise<App | null> {
    const [app] = await this.db.rows<App>(GET_BY_ID, [appId]);
    return app ?? null;
  }

  /** The app's delivery limits (null: none); null when there is no such app. */
  async deliveryLimits(appId: string): Promise<{ maxInFlight: number | null; maxPerSecond: number | null } | null> {
    const [limits] = await this.db.rows<{ maxInFlight: number | null; maxPerSecond: number | null }>(
      GET_DELIVERY_LIMITS,
      [appId],
    );
    return limits ?? null;
  }
}
