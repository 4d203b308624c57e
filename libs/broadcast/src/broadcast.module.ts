import { Global, Module } from '@nestjs/common';
import { CallSignals } from './call-signals.js';
import { FleetCounters } from './fleet-counters.js';
import { McpServerChanges } from './mcp-server-changes.js';
import { ToolsetGenerations } from './toolset-generations.js';

const broadcasts = [CallSignals, FleetCounters, McpServerChanges, ToolsetGenerations];

@Global()
@Module({ providers: broadcasts, exports: broadcasts })
export class BroadcastModule {}
