import { Injectable } from '@nestjs/common';
import { ENCRYPTED_COLUMNS, EncryptedColumnsRepository } from '../../../persistence/src/index.js';
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
          if (!this.secrets.needsReencryption(row.value)) {
            report.alreadyCurrent += 1;
            continue;
          }
          if (await this.columns.replace(target, row.id, row.value, await this.secrets.reencrypt(row.value))) {
            report.reencrypted[key] += 1;
          }
        }
        if (rows.length < batchSize) break;
        after = rows[rows.length - 1].id;
      }
    }
    return report;
  }
}
