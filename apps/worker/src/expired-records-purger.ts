import { Inject, Injectable } from '@nestjs/common';
import { ENV, type Env } from '../../../libs/config/src/index.js';
import { PurgeExpiredRecords } from '../../../libs/domain/src/index.js';
import { PeriodicTask } from './periodic-task.js';

/** Every PURGE_INTERVAL_MS, deletes expired idempotency keys, launch codes and old finished calls, in small batches. */
@Injectable()
export class ExpiredRecordsPurger extends PeriodicTask {
  protected readonly everyMs: number;

  constructor(
    @Inject(ENV) env: Env,
    private readonly purge: PurgeExpiredRecords,
  ) {
    super();
    this.everyMs = env.PURGE_INTERVAL_MS;
  }

  protected async run(): Promise<void> {
    const { idempotencyKeys, launchCodes, toolCalls } = await this.purge.execute();
    if (idempotencyKeys + launchCodes + toolCalls > 0) {
      const calls = `${toolCalls} finished call(s) past CALL_RETENTION_DAYS`;
      this.logger.log(`purged ${idempotencyKeys} expired idempotency key(s), ${launchCodes} launch code(s), ${calls}`);
    }
  }
}
