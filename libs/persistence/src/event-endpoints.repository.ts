import { Injectable } from '@nestjs/common';
import type { RetiredWebhookSecret } from './apps.repository.js';
import type { EventEndpoint } from './generated/client.js';
import { PrismaService } from './prisma.service.js';

/** A project's event endpoint, read by the project's routes (the secret stays encrypted here). */
export type StoredEventEndpoint = Pick<EventEndpoint, 'id' | 'projectId' | 'url' | 'secretEnc' | 'retiredSecrets'>;

/** Event endpoints, one per project, always reached by the project's id first. */
@Injectable()
export class EventEndpointsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async get(projectId: string): Promise<StoredEventEndpoint | null> {
    return this.prisma.eventEndpoint.findUnique({ where: { projectId } });
  }

  /**
   * Sets the project's endpoint URL; a new endpoint takes `secretEnc`, an existing one keeps its secret (a URL
   * moved is not a secret rotated). Answers the endpoint as stored.
   */
  async put(projectId: string, id: string, url: string, secretEnc: string): Promise<StoredEventEndpoint> {
    return this.prisma.eventEndpoint.upsert({
      where: { projectId },
      create: { id, projectId, url, secretEnc },
      update: { url },
    });
  }

  /** True when the project had an endpoint. */
  async delete(projectId: string): Promise<boolean> {
    const { count } = await this.prisma.eventEndpoint.deleteMany({ where: { projectId } });
    return count > 0;
  }

  /**
   * Makes `secretEnc` the endpoint's secret and retires the current one until `validUntil`, in one statement, as
   * AppsRepository.rotateWebhookSecret does for an app. Null when the project has no endpoint.
   */
  async rotateSecret(
    projectId: string,
    secretEnc: string,
    now: Date,
    validUntil: Date,
    maxRetired: number,
  ): Promise<{ rotated: boolean; retired: RetiredWebhookSecret[] } | null> {
    const stillValid = `FROM jsonb_array_elements(event_endpoints.retired_secrets) s
      WHERE (s->>'valid_until')::timestamptz > $2::timestamptz`;
    const rows = await this.prisma.$queryRawUnsafe<{ retired: RetiredWebhookSecret[] }[]>(
      `UPDATE event_endpoints SET
        retired_secrets = (SELECT COALESCE(jsonb_agg(s ORDER BY s->>'valid_until'), '[]'::jsonb) ${stillValid})
          || jsonb_build_array(jsonb_build_object('secret_enc', event_endpoints.secret_enc, 'valid_until', $3::text)),
        secret_enc = $4, updated_at = now() AT TIME ZONE 'UTC'
      WHERE project_id = $1 AND (SELECT count(*) ${stillValid}) < $5
      RETURNING retired_secrets AS retired`,
      projectId,
      now.toISOString(),
      validUntil.toISOString(),
      secretEnc,
      maxRetired,
    );
    if (rows.length > 0) return { rotated: true, retired: rows[0].retired };
    const endpoint = await this.get(projectId);
    if (!endpoint) return null;
    const retired = endpoint.retiredSecrets as RetiredWebhookSecret[];
    return { rotated: false, retired: retired.filter((secret) => new Date(secret.valid_until) > now) };
  }
}
