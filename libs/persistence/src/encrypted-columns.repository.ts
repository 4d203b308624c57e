import { Injectable } from '@nestjs/common';
import { PrismaService } from './prisma.service.js';

/** Every column that holds a secret as compact JWE: the one list key rotation walks. */
export const ENCRYPTED_COLUMNS = [
  { table: 'apps', column: 'webhook_secret_enc' },
  { table: 'apps', column: 'previous_webhook_secret_enc' },
  { table: 'apps', column: 'mcp_auth_header_value_enc' },
  { table: 'tool_instances', column: 'private_data_enc' },
  { table: 'tool_calls', column: 'body_enc' },
] as const;

export type EncryptedColumn = (typeof ENCRYPTED_COLUMNS)[number];

/** Reads and rewrites encrypted values in batches, by primary key; identifiers come only from ENCRYPTED_COLUMNS. */
@Injectable()
export class EncryptedColumnsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async batch(target: EncryptedColumn, afterId: string, size: number): Promise<{ id: string; value: string }[]> {
    return this.prisma.$queryRawUnsafe(
      `SELECT id, "${target.column}" AS value FROM "${target.table}" WHERE "${target.column}" IS NOT NULL AND id > $1 ORDER BY id LIMIT $2`,
      afterId,
      size,
    );
  }

  /** Replaces a value only if it is still the one that was read (a concurrent write wins). */
  async replace(target: EncryptedColumn, id: string, previous: string, next: string): Promise<boolean> {
    const count = await this.prisma.$executeRawUnsafe(
      `UPDATE "${target.table}" SET "${target.column}" = $1 WHERE id = $2 AND "${target.column}" = $3`,
      next,
      id,
      previous,
    );
    return count > 0;
  }
}
