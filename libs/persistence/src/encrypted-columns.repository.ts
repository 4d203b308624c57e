import { Injectable } from '@nestjs/common';
import { PrismaService } from './prisma.service.js';

/** A column holding a secret as compact JWE, or (with `listKey`) a jsonb list of objects holding one each under that key. */
export interface EncryptedColumn {
  table: string;
  column: string;
  listKey?: string;
}

/** Every column that holds a secret as compact JWE: the one list key rotation walks. */
export const ENCRYPTED_COLUMNS: readonly EncryptedColumn[] = [
  { table: 'apps', column: 'webhook_secret_enc' },
  { table: 'apps', column: 'retired_webhook_secrets', listKey: 'secret_enc' },
  { table: 'apps', column: 'mcp_auth_header_value_enc' },
  { table: 'tool_instances', column: 'private_data_enc' },
  { table: 'tool_calls', column: 'body_enc' },
  { table: 'event_endpoints', column: 'secret_enc' },
  { table: 'event_endpoints', column: 'retired_secrets', listKey: 'secret_enc' },
];

/** Reads and rewrites encrypted values in batches, by primary key; identifiers come only from ENCRYPTED_COLUMNS. */
@Injectable()
export class EncryptedColumnsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** A list column's value is its jsonb text. */
  async batch(target: EncryptedColumn, afterId: string, size: number): Promise<{ id: string; value: string }[]> {
    const present = target.listKey ? `jsonb_array_length("${target.column}") > 0` : `"${target.column}" IS NOT NULL`;
    return this.prisma.$queryRawUnsafe(
      `SELECT id, "${target.column}"::text AS value FROM "${target.table}" WHERE ${present} AND id > $1 ORDER BY id LIMIT $2`,
      afterId,
      size,
    );
  }

  /** Replaces a value only if it is still the one that was read (a concurrent write wins). */
  async replace(target: EncryptedColumn, id: string, previous: string, next: string): Promise<boolean> {
    const type = target.listKey ? 'jsonb' : 'text';
    const count = await this.prisma.$executeRawUnsafe(
      `UPDATE "${target.table}" SET "${target.column}" = $1::${type} WHERE id = $2 AND "${target.column}" = $3::${type}`,
      next,
      id,
      previous,
    );
    return count > 0;
  }
}
