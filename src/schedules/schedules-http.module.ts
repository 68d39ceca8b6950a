import { Module } from '@nestjs/common';
import { SchedulesController } from './schedules.controller';
import { SchedulesService } from './schedules.service';

/** The REST routes of recurring actions. */
@Module({ controllers: [SchedulesController], providers: [SchedulesService] })
export class SchedulesHttpModule {}
