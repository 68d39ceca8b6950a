import { BadRequestException, ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import type { Pool } from 'pg';
import { QueueSettings } from '../config/settings';
import { SETTINGS } from '../config/settings.token';
import { PG_POOL } from '../database/pg-pool.provider';
import { fitToBudget } from '../http/response-budget';
import { ActionHandlersRegistry } from '../handlers/action-handlers.registry';
import { RecurringActionOptions } from '../handlers/recurring-action-options.interface';
import { checkSchedule, scheduleValues } from './schedule-input';
import { ListedScheduleResource, ScheduleResource, ScheduleRow, toScheduleResource } from './schedule.resource';
import {
  DB_NOW_SQL,
  DELETE_SCHEDULE_SQL,
  INSERT_SCHEDULE_SQL,
  LIST_SCHEDULE_SIZES_SQL,
  LIST_SCHEDULES_BY_NAME_SQL,
  SELECT_SCHEDULE_SQL,
} from './sql/schedules.sql';

/** Upper bound of schedules listed at once: they are configuration, not data; far more is a mistake. */
export const MAX_SCHEDULES_LISTED = 1_000;

/**
 * Creates, lists and deletes recurring actions at runtime. Any instance's
 * ticker (schedule-ticker.service.ts) picks a new schedule up within its poll.
 */
@Injectable()
export class SchedulesService {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly registry: ActionHandlersRegistry,
    @Inject(SETTINGS) private readonly settings: QueueSettings,
  ) {}

  /**
   * Every schedule by name, each with its next run (at most {@link MAX_SCHEDULES_LISTED}),
   * within MAX_RESPONSE_BYTES: a schedule whose payload and last error cannot fit
   * beside the others is listed without them (`contentOmitted`, with `contentBytes`).
   */
  async list(): Promise<{ items: ListedScheduleResource[] }> {
    const sizes: { name: string; payload_bytes: string; last_error_bytes: string }[] = (await this.pool.query(LIST_SCHEDULE_SIZES_SQL, [MAX_SCHEDULES_LISTED]))
      .rows;
    const bytes = new Map(sizes.map((s) => [s.name, { payload: Number(s.payload_bytes), lastError: Number(s.last_error_bytes) }]));
    // No cursor: a schedule that cannot fit is listed without its content rather than left out.
    const fit = fitToBudget(
      sizes.map((s) => Number(s.payload_bytes) + Number(s.last_error_bytes)),
      this.settings.MAX_RESPONSE_BYTES,
      false,
    );
    const omitted = sizes.filter((_, i) => fit.omitted[i]).map((s) => s.name);
    const rows: ScheduleRow[] = (await this.pool.query(LIST_SCHEDULES_BY_NAME_SQL, [sizes.map((s) => s.name), omitted])).rows;
    const left = new Set(omitted);
    return {
      items: rows.map((row) =>
        left.has(row.name)
          ? { ...toScheduleResource(row), contentOmitted: true, contentBytes: bytes.get(row.name)! }
          : { ...toScheduleResource(row), contentOmitted: false },
      ),
    };
  }

  /**
   * One schedule.
   * @throws BadRequestException (400) for a name holding NUL (PostgreSQL text cannot); NotFoundException (404).
   */
  async get(name: string): Promise<ScheduleResource> {
    checkNameParam(name);
    const [row]: ScheduleRow[] = (await this.pool.query(SELECT_SCHEDULE_SQL, [name])).rows;
    if (!row) throw new NotFoundException(`schedule "${name}" not found`);
    return toScheduleResource(row);
  }

  /**
   * Creates a schedule whose first tick is the first after now (database clock).
   * @throws BadRequestException (400) naming each invalid field, also a type no handler is registered for
   *   (as POST /actions: its ticks could never run); ConflictException (409) when the name is taken.
   */
  async create(input: RecurringActionOptions & { type: string }): Promise<ScheduleResource> {
    const checked = checkSchedule(input);
    if ('problems' in checked) throw new BadRequestException(checked.problems);
    // Schedules declared in code are their handler's own, so only this route can name an unknown type.
    if (!this.registry.has(input.type)) {
      throw new BadRequestException([`type "${input.type}" has no registered handler (known: ${this.registry.types().join(', ') || 'none'})`]);
    }
    const [{ db_now }]: { db_now: Date }[] = (await this.pool.query(DB_NOW_SQL)).rows;
    const [row]: ScheduleRow[] = (await this.pool.query(INSERT_SCHEDULE_SQL, scheduleValues(checked.params, 'api', db_now))).rows;
    if (!row) throw new ConflictException(`name: a schedule named "${input.name}" exists; delete it first`);
    return toScheduleResource(row);
  }

  /**
   * Deletes a schedule; its past ticks stay recorded (a schedule created again
   * under the name never enqueues a tick twice).
   * @throws BadRequestException (400) for a name holding NUL; NotFoundException (404).
   */
  async remove(name: string): Promise<void> {
    checkNameParam(name);
    const { rowCount } = await this.pool.query(DELETE_SCHEDULE_SQL, [name]);
    if (rowCount === 0) throw new NotFoundException(`schedule "${name}" not found`);
  }
}

/** A name in a path holding NUL would make PostgreSQL refuse the text parameter (a 500): refused as bad input. */
function checkNameParam(name: string): void {
  if (name.includes('\u0000')) throw new BadRequestException(['name must not contain the NUL character']);
}
