import { nextTick, parseCron, planTicks } from './schedule-plan';

const at = (iso: string) => new Date(iso);
const iso = (dates: Date[]) => dates.map((d) => d.toISOString());

describe('planTicks', () => {
  const everySecond = parseCron('* * * * * *', 'UTC');

  it('enqueues every due tick within the grace, oldest first, and moves the cursor past now', () => {
    const plan = planTicks(everySecond, at('2026-01-01T00:00:00Z'), at('2026-01-01T00:00:02.500Z'), { catchUp: 'skip', limit: 0, misfireGraceMs: 10_000 });
    expect(iso(plan.enqueue)).toEqual(['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:01.000Z', '2026-01-01T00:00:02.000Z']);
    expect(plan.skipped).toBe(0);
    expect(plan.next.toISOString()).toBe('2026-01-01T00:00:03.000Z');
  });

  // Lateness (docs/operator-controls.md, "Catch-up after downtime"): from the tick's nominal instant
  // (its cron time in its zone), not from the cursor or the schedule's creation, to the `now` the caller
  // passes (the database clock when the ticker takes the schedule); exactly `misfireGraceMs` late is on time.
  it("measures a tick's lateness from its nominal instant to now, a tick exactly the grace late being on time", () => {
    const hourly = parseCron('0 * * * *', 'Europe/Paris');
    const cursor = at('2026-01-01T00:00:00Z'); // 01:00 in Paris: the first tick is that instant
    const policy = { catchUp: 'skip' as const, limit: 0, misfireGraceMs: 10_000 };
    const onTime = planTicks(hourly, cursor, at('2026-01-01T00:00:10.000Z'), policy);
    expect(iso(onTime.enqueue)).toEqual(['2026-01-01T00:00:00.000Z']);
    const tooLate = planTicks(hourly, cursor, at('2026-01-01T00:00:10.001Z'), policy);
    expect(tooLate.enqueue).toEqual([]);
    expect(tooLate.skipped).toBe(1);
    // A cursor left far behind (the schedule idle for hours) changes nothing: each tick is judged by its own time.
    const behind = planTicks(hourly, at('2025-12-31T20:00:00Z'), at('2026-01-01T00:00:05Z'), policy);
    expect(iso(behind.enqueue)).toEqual(['2026-01-01T00:00:00.000Z']);
    expect(behind.skipped).toBe(4);
  });

  it('under skip drops the ticks older than the grace', () => {
    const plan = planTicks(everySecond, at('2026-01-01T00:00:00Z'), at('2026-01-01T00:00:10Z'), { catchUp: 'skip', limit: 5, misfireGraceMs: 2_000 });
    expect(iso(plan.enqueue)).toEqual(['2026-01-01T00:00:08.000Z', '2026-01-01T00:00:09.000Z', '2026-01-01T00:00:10.000Z']);
    expect(plan.skipped).toBe(8);
  });

  it('under fill enqueues the newest `limit` late ticks too', () => {
    const plan = planTicks(everySecond, at('2026-01-01T00:00:00Z'), at('2026-01-01T00:00:10Z'), { catchUp: 'fill', limit: 2, misfireGraceMs: 2_000 });
    expect(iso(plan.enqueue)).toEqual([
      '2026-01-01T00:00:06.000Z',
      '2026-01-01T00:00:07.000Z',
      '2026-01-01T00:00:08.000Z',
      '2026-01-01T00:00:09.000Z',
      '2026-01-01T00:00:10.000Z',
    ]);
    expect(plan.skipped).toBe(6);
  });

  it('plans nothing before the cursor is due', () => {
    const plan = planTicks(everySecond, at('2026-01-01T00:00:05Z'), at('2026-01-01T00:00:04.900Z'), { catchUp: 'fill', limit: 3, misfireGraceMs: 0 });
    expect(plan.enqueue).toEqual([]);
    expect(plan.next.toISOString()).toBe('2026-01-01T00:00:05.000Z');
  });

  it('bounds the walk of a long downtime (fill then takes no older tick) and still enqueues the ticks within the grace', () => {
    const plan = planTicks(everySecond, at('2026-01-01T00:00:00Z'), at('2026-01-03T00:00:00Z'), { catchUp: 'fill', limit: 5, misfireGraceMs: 1_000 });
    expect(iso(plan.enqueue)).toEqual(['2026-01-02T23:59:59.000Z', '2026-01-03T00:00:00.000Z']);
    expect(plan.skipped).toBeGreaterThan(0);
  });

  it('follows the time zone, daylight saving included', () => {
    const daily = parseCron('0 30 2 * * *', 'Europe/Paris');
    // 2026-03-29 is the spring-forward day in Paris: 02:30 local does not exist.
    expect(nextTick(daily, at('2026-03-27T12:00:00Z')).toISOString()).toBe('2026-03-28T01:30:00.000Z');
    expect(nextTick(parseCron('0 0 9 * * *', 'America/New_York'), at('2026-01-01T00:00:00Z')).toISOString()).toBe('2026-01-01T14:00:00.000Z');
  });

  it('refuses an invalid expression or time zone', () => {
    expect(() => parseCron('61 * * * *', 'UTC')).toThrow(/out of range/);
    expect(() => parseCron('* * * * *', 'Nowhere/Zone')).toThrow(/time ?zone/i);
  });
});
