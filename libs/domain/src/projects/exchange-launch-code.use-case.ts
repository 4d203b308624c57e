import { Injectable } from '@nestjs/common';
import {
  HttpToolsRepository,
  type LaunchCode,
  LaunchCodesRepository,
  type ToolInstance,
  ToolInstancesRepository,
} from '../../../persistence/src/index.js';
import { FindOwnedApp } from '../apps/find-owned-app.js';
import { DomainError } from '../errors.js';
import { type HttpToolRecord, httpToolFromRow } from '../tools/http-tool-record.js';
import { hashCode } from './launch-code-hash.js';

/** What a configurator learns from its launch code: who launched it, for which tool and which instance. */
export interface LaunchContext {
  launch: LaunchCode;
  tool: HttpToolRecord | null;
  /** The instance being edited (mode edit), or null. */
  instance: ToolInstance | null;
}

/** The developer's configurator trades a launch code (once, within 10 minutes) for its context. */
@Injectable()
export class ExchangeLaunchCode {
  constructor(
    private readonly findOwnedApp: FindOwnedApp,
    private readonly launchCodes: LaunchCodesRepository,
    private readonly httpTools: HttpToolsRepository,
    private readonly instances: ToolInstancesRepository,
  ) {}

  async execute(developerId: string, appId: string, launchCode: string, now = new Date()): Promise<LaunchContext> {
    await this.findOwnedApp.execute(developerId, appId);
    const launch = await this.launchCodes.consume(developerId, appId, hashCode(launchCode), now);
    if (!launch) throw DomainError.notFound('Launch code (unknown, already used or older than 10 minutes)');
    const toolRow = await this.httpTools.getByName(appId, launch.toolName);
    const instance = launch.instanceId
      ? await this.instances.get(launch.projectId, launch.agentId, launch.instanceId)
      : null;
    return { launch, tool: toolRow ? httpToolFromRow(toolRow) : null, instance };
  }
}
