import { Module } from '@nestjs/common';
import { ActionHandlersModule } from '../handlers/action-handlers.module';
import { SchedulesController } from './schedules.controller';
import { SchedulesService } from './schedules.service';

/** The REST routes of recurring actions. */
@Module({ imports: [ActionHandlersModule], controllers: [SchedulesController], providers: [SchedulesService] })
export class SchedulesHttpModule {}
