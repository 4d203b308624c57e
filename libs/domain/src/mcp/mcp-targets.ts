import { Injectable } from '@nestjs/common';
import type { App } from '../../../persistence/src/index.js';
import type { McpServerTarget } from '../../../mcp/src/index.js';
import { SecretBox } from '../../../secrets/src/index.js';
import { DomainError } from '../errors.js';

/** An app's MCP server as a connection target, its auth header value decrypted for this use only. */
@Injectable()
export class McpTargets {
  constructor(private readonly secrets: SecretBox) {}

  async of(app: App): Promise<McpServerTarget> {
    if (!app.mcpUrl)
      throw DomainError.conflict(
        `App "${app.name}" has no MCP server URL: set it with PUT /v1/apps/{app_id}/agent-tools.`,
      );
    return {
      appId: app.id,
      url: app.mcpUrl,
      headerName: app.mcpAuthHeaderName,
      headerValue: app.mcpAuthHeaderValueEnc ? await this.secrets.decrypt(app.mcpAuthHeaderValueEnc) : null,
    };
  }
}
