import { Injectable } from '@nestjs/common';
import { FindOwnedApp } from '../apps/find-owned-app.js';
import { DomainError, ErrorCode } from '../errors.js';
import { type RefreshOutcome, RefreshMcpSnapshot } from './refresh-mcp-snapshot.use-case.js';

/** The developer's "refresh now": 503 with the reason when the server cannot be reached (the old snapshot stays). */
@Injectable()
export class RefreshAppMcpTools {
  constructor(
    private readonly findOwnedApp: FindOwnedApp,
    private readonly refresh: RefreshMcpSnapshot,
  ) {}

  async execute(developerId: string, appId: string): Promise<RefreshOutcome> {
    await this.findOwnedApp.execute(developerId, appId);
    const outcome = await this.refresh.execute(appId);
    if (!outcome.ok) {
      throw new DomainError(
        ErrorCode.Unavailable,
        `${outcome.error}. The previous snapshot (${outcome.tools.length} tools) is kept.`,
      );
    }
    return outcome;
  }
}
