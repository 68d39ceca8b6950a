import { Module } from '@nestjs/common';
import { CreateInstanceHandler, DeleteInstanceHandler, SyncInstancesHandler, UpdateInstanceHandler } from './instance.handlers';

/** The demo handlers instance.create/update/delete and the chunk handler instance.sync; left out when DEMO_HANDLERS=false. */
@Module({ providers: [CreateInstanceHandler, UpdateInstanceHandler, DeleteInstanceHandler, SyncInstancesHandler] })
export class DemoHandlersModule {}
