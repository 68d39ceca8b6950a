import { Module } from '@nestjs/common';
import { ActionHandlersModule } from '../handlers/action-handlers.module';
import { ScheduleTicker } from './schedule-ticker.service';

/** Recurring actions: the ticker that enqueues due ticks (every instance runs it; the database keeps it once per tick). */
@Module({ imports: [ActionHandlersModule], providers: [ScheduleTicker], exports: [ScheduleTicker] })
export class SchedulesModule {}
