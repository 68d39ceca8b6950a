import { Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { ActionHandlersModule } from '../handlers/action-handlers.module';
import { ScheduleTicker } from './schedule-ticker.service';

/**
 * Recurring actions: the ticker that enqueues due ticks (every instance runs
 * it; the database keeps it once per tick), timed by @nestjs/schedule. An app
 * that imports ScheduleModule.forRoot() itself shares the one global registry
 * (the same registration is imported once).
 */
@Module({ imports: [ActionHandlersModule, ScheduleModule.forRoot()], providers: [ScheduleTicker], exports: [ScheduleTicker] })
export class SchedulesModule {}
