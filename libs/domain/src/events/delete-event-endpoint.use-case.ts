import { Injectable } from '@nestjs/common';
import { EventEndpointsRepository } from '../../../persistence/src/index.js';
import { noEndpoint } from './get-event-endpoint.use-case.js';

/** No more events: calls that end from now on store none, and events still pending end cancelled at their attempt. */
@Injectable()
export class DeleteEventEndpoint {
  constructor(private readonly endpoints: EventEndpointsRepository) {}

  async execute(projectId: string): Promise<void> {
    if (!(await this.endpoints.delete(projectId))) throw noEndpoint(projectId);
  }
}
