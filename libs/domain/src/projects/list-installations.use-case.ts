import { Injectable } from '@nestjs/common';
import {
  type InstallationWithApp,
  InstallationsRepository,
  type Page,
  type PageRequest,
} from '../../../persistence/src/index.js';

@Injectable()
export class ListInstallations {
  constructor(private readonly installations: InstallationsRepository) {}

  async execute(projectId: string, page: PageRequest): Promise<Page<InstallationWithApp>> {
    return this.installations.list(projectId, page);
  }
}
