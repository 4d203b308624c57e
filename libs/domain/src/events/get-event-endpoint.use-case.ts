import { Injectable } from '@nestjs/common';
import { EventEndpointsRepository } from '../../../persistence/src/index.js';
import { DomainError } from '../errors.js';

/** The project's event endpoint, without its secret. */
@Injectable()
export class GetEventEndpoint {
  constructor(private readonly endpoints: EventEndpointsRepository) {}

  async execute(projectId: string): Promise<{ url: string }> {
    const endpoint = await this.endpoints.get(projectId);
    if (!endpoint) throw noEndpoint(projectId);
    return { url: endpoint.url };
  }
}

export function noEndpoint(projectId: string): DomainError {
  return DomainError.notFound(
    `The event endpoint of project "${projectId}" (none is set: PUT /v1/projects/${projectId}/event-endpoint sets one)`,
  );
}
