import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ActionHandlersExplorer } from './action-handlers.explorer';
import { ActionHandlersRegistry } from './action-handlers.registry';

/** Discovers @ActionHandler providers; exports only the registry. */
@Module({
  imports: [DiscoveryModule],
  providers: [ActionHandlersExplorer, ActionHandlersRegistry],
  exports: [ActionHandlersRegistry],
})
export class ActionHandlersModule {}
