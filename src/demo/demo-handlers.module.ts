import { Module } from '@nestjs/common';
import { CreateInstanceHandler, DeleteInstanceHandler, UpdateInstanceHandler } from './instance.handlers';

/** The demo handlers instance.create/update/delete; left out when DEMO_HANDLERS=false. */
@Module({ providers: [CreateInstanceHandler, UpdateInstanceHandler, DeleteInstanceHandler] })
export class DemoHandlersModule {}
