import { Module } from '@nestjs/common';
import { ActionHandlersModule } from '../handlers/action-handlers.module';
import { ScheduleTicker } from './schedule-ticker.service';

/**
 * Recurring actions: the ticker that enqueues due ticks (every instance runs
 * it; the database keeps it once per tick), timed by @nestjs/schedule.
 *
 * It does not import ScheduleModule.forRoot() itself: Nest 11 keys a dynamic
 * module by reference, so a second forRoot() beside the host app's would be a
 * second scheduler whose explorer runs every @Cron/@Interval of the app a
 * second time (seen: an @Interval(100) called 20 times a second). The
 * service's root module imports it (src/service/app.module.ts); an app that
 * embeds the queue and imports it too lends the ticker its registry; without
 * one the ticker keeps a registry of its own.
 */
@Module({ imports: [ActionHandlersModule], providers: [ScheduleTicker], exports: [ScheduleTicker] })
export class SchedulesModule {}
