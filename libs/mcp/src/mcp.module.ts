import { Global, Module } from '@nestjs/common';
import { McpClients } from './mcp-clients.js';

@Global()
@Module({ providers: [McpClients], exports: [McpClients] })
export class McpModule {}
