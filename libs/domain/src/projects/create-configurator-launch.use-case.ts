import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { HttpToolsRepository, LaunchCodesRepository, ToolInstancesRepository } from '../../../persistence/src/index.js';
import { refuseSwitchedOffApp } from '../apps/refuse-switched-off-app.js';
import { DomainError } from '../errors.js';
import { FindInstallation } from './find-installation.use-case.js';
import type { Language } from './language.js';
import { hashCode } from './launch-code-hash.js';

/** How long a launch code can be exchanged. */
export const LAUNCH_CODE_TTL_MS = 10 * 60 * 1000;

export const THEMES = ['light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

export interface ConfiguratorLaunchInput {
  installation_id: string;
  tool_name: string;
  instance_id?: string;
  theme: Theme;
  language: Language;
  /** Opens the app's developer page (`developer_page_url`) instead of its embedded page. */
  developer_mode?: boolean;
}

/** Opens the app's configurator page (its developer page in developer mode) for one tool: a URL carrying a one-time launch code. */
@Injectable()
export class CreateConfiguratorLaunch {
  constructor(
    private readonly findInstallation: FindInstallation,
    private readonly httpTools: HttpToolsRepository,
    private readonly instances: ToolInstancesRepository,
    private readonly launchCodes: LaunchCodesRepository,
  ) {}

  async execute(projectId: string, agentId: string, input: ConfiguratorLaunchInput, now = new Date()) {
    const { app } = await this.findInstallation.execute(projectId, input.installation_id);
    refuseSwitchedOffApp(app, 'its configurator cannot be opened');
    const tool = app.agentToolsMode === 'constructor' ? await this.httpTools.getByName(app.id, input.tool_name) : null;
    if (!tool) {
      throw DomainError.validation([
        { path: 'tool_name', message: `the app's current mode has no HTTP tool "${input.tool_name}"` },
      ]);
    }
    if (!tool.configurable)
      throw DomainError.conflict(`Tool "${input.tool_name}" is not configurable: it has no configurator.`);
    const page = input.developer_mode ? app.developerPageUrl : app.embeddedPageUrl;
    if (!page) {
      throw DomainError.conflict(
        input.developer_mode
          ? `App "${app.name}" has no developer page (developer_page_url): its developer sets one, or launch without developer_mode.`
          : `App "${app.name}" has no configurator page (embedded_page_url).`,
      );
    }
    if (input.instance_id) {
      const instance = await this.instances.get(projectId, agentId, input.instance_id);
      if (!instance || instance.installationId !== input.installation_id || instance.toolName !== input.tool_name) {
        throw DomainError.notFound(`Tool instance "${input.instance_id}" of tool "${input.tool_name}"`);
      }
    }
    const launchCode = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + LAUNCH_CODE_TTL_MS);
    await this.launchCodes.create(projectId, agentId, {
      codeHash: hashCode(launchCode),
      appId: app.id,
      installationId: input.installation_id,
      toolName: input.tool_name,
      instanceId: input.instance_id ?? null,
      mode: input.instance_id ? 'edit' : 'create',
      theme: input.theme,
      language: input.language,
      expiresAt,
    });
    const url = new URL(page);
    url.searchParams.set('launch_code', launchCode);
    url.searchParams.set('senler_mode', 'tool_configurator');
    url.searchParams.set('senler_theme', input.theme);
    url.searchParams.set('senler_language', input.language);
    return { url: url.toString(), launch_code: launchCode, expires_at: expiresAt };
  }
}
