import { Global, Module } from '@nestjs/common';
import { CallEvents } from './call-events.js';
import { McpServerChanges } from './mcp-server-changes.js';
import { ToolsetGenerations } from './toolset-generations.js';

const broadcasts = [CallEvents, McpServerChanges, ToolsetGenerations];

@Global()
@Module({ providers: broadcasts, exports: broadcasts })
export class BroadcastModule {}
