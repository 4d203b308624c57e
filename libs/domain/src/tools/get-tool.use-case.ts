import { Injectable } from '@nestjs/common';
import { HttpToolsRepository } from '../../../persistence/src/index.js';
import { DomainError } from '../errors.js';
import { type HttpToolRecord, httpToolFromRow } from './http-tool-record.js';

@Injectable()
export class GetTool {
  constructor(private readonly tools: HttpToolsRepository) {}

  async execute(developerId: string, appId: string, toolId: string): Promise<HttpToolRecord> {
    const row = await this.tools.get(developerId, appId, toolId);
    if (!row) throw DomainError.notFound(`Tool "${toolId}"`);
    return httpToolFromRow(row);
  }
}
