import { Injectable } from '@nestjs/common';
import {
  type InstallationWithApp,
  InstallationsRepository,
  type Page,
  type PageRequest,
} from '../../../persistence/src/index.js';
import { InstallationToolChanges } from '../approvals/installation-tool-changes.js';

/** An installation as its project reads it: with the tools whose changed definition waits for its approval. */
export type InstallationRead = InstallationWithApp & { pendingChanges: string[] };

@Injectable()
export class ListInstallations {
  constructor(
    private readonly installations: InstallationsRepository,
    private readonly toolChanges: InstallationToolChanges,
  ) {}

  async execute(projectId: string, page: PageRequest): Promise<Page<InstallationRead>> {
    const { items, nextAfter } = await this.installations.list(projectId, page);
    // One read per installation of the page (at most 100): a project has few apps installed.
    const reads = await Promise.all(
      items.map(async (installation) => ({
        ...installation,
        pendingChanges: (await this.toolChanges.pending(installation)).map((change) => change.name),
      })),
    );
    return { items: reads, nextAfter };
  }
}
