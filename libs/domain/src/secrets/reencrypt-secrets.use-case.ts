import { Injectable } from '@nestjs/common';
import { ENCRYPTED_COLUMNS, type EncryptedColumn, EncryptedColumnsRepository } from '../../../persistence/src/index.js';
import { SecretBox } from '../../../secrets/src/index.js';

export interface ReencryptionReport {
  /** `table.column` → values moved to the current key. */
  reencrypted: Record<string, number>;
  alreadyCurrent: number;
}

/** Key rotation: re-encrypts every secret at rest that is not under the current (first) key. */
@Injectable()
export class ReencryptSecrets {
  constructor(
    private readonly columns: EncryptedColumnsRepository,
    private readonly secrets: SecretBox,
  ) {}

  async execute(batchSize = 500): Promise<ReencryptionReport> {
    const report: ReencryptionReport = { reencrypted: {}, alreadyCurrent: 0 };
    for (const target of ENCRYPTED_COLUMNS) {
      const key = `${target.table}.${target.column}`;
      report.reencrypted[key] = 0;
      let after = '';
      for (;;) {
        const rows = await this.columns.batch(target, after, batchSize);
        for (const row of rows) {
          const { next, moved, current } = await this.reencrypted(target, row.value);
          report.alreadyCurrent += current;
          if (moved > 0 && (await this.columns.replace(target, row.id, row.value, next)))
            report.reencrypted[key] += moved;
        }
        if (rows.length < batchSize) break;
        after = rows[rows.length - 1].id;
      }
    }
    return report;
  }

  /** A value under the current key, with how many secrets in it moved and how many were current already. */
  private async reencrypted(
    target: EncryptedColumn,
    value: string,
  ): Promise<{ next: string; moved: number; current: number }> {
    if (!target.listKey) {
      if (!this.secrets.needsReencryption(value)) return { next: value, moved: 0, current: 1 };
      return { next: await this.secrets.reencrypt(value), moved: 1, current: 0 };
    }
    const listKey = target.listKey;
    const items = JSON.parse(value) as Record<string, string>[];
    let moved = 0;
    for (const item of items) {
      if (!this.secrets.needsReencryption(item[listKey])) continue;
      item[listKey] = await this.secrets.reencrypt(item[listKey]);
      moved += 1;
    }
    return { next: JSON.stringify(items), moved, current: items.length - moved };
  }
}
