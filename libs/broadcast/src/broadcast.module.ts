import { Global, Module } from '@nestjs/common';
import { CallEvents } from './call-events.js';
import { ToolsetGenerations } from './toolset-generations.js';

@Global()
@Module({ providers: [CallEvents, ToolsetGenerations], exports: [CallEvents, ToolsetGenerations] })
export class BroadcastModule {}
