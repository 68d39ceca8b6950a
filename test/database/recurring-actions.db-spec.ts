import { Injectable, Module } from '@nestjs/common';
import request from 'supertest';
import { ActionHandler } from '../../src/handlers/action-handler.decorator';
import { ActionHandlerHost } from '../../src/handlers/action-handler.host';
import { waitFor, withTestApp } from '../support';

/** A handler declaring a recurring action in code. */
@Injectable()
@ActionHandler({ type: 'report.build', recurring: [{ name: 'code-every-second', cron: '* * * * * *', timeZone: 'UTC', groupKey: 'reports' }] })
class ReportHandler extends ActionHandlerHost {
  async handle(): Promise<void> {}
}

@Module({ providers: [ReportHandler] })
class ReportModule {}

/**
 * Recurring actions in one process (src/schedules/, migration 036): a
 * schedule declared by a handler option and one created over REST both
 * enqueue their ticks; the catch-up policy after downtime; bad input.
 */
describe('recurring actions', () => {
  const t = withTestApp('recurring', { imports: [ReportModule] });
  const ticksOf = async (name: string) =>
    (
      await t.pg.query<{ tick_at: Date; action_id: string | null }>(
        `SELECT tick_at, action_id::text FROM action_schedule_ticks WHERE schedule_name = $1 ORDER BY tick_at`,
        [name],
      )
    ).rows;

  it('enqueues the ticks of a schedule declared in code, into its group, one action per tick', async () => {
    await waitFor(async () => (await ticksOf('code-every-second')).length >= 3 || null, 20_000);
    const ticks = await ticksOf('code-every-second');
    const { rows } = await t.pg.query<{ group_key: string; n: number }>(
      `SELECT group_key, count(*)::int AS n FROM actions WHERE id = ANY($1::bigint[]) GROUP BY group_key`,
      [ticks.map((k) => k.action_id)],
    );
    expect(rows).toEqual([{ group_key: 'reports', n: ticks.length }]);
    const listed = await request(t.url).get('/schedules').expect(200);
    expect(listed.body.items.find((s: { name: string }) => s.name === 'code-every-second')).toMatchObject({ source: 'code', type: 'report.build' });
    await t.pg.query(`DELETE FROM action_schedules WHERE name = 'code-every-second'`);
  });

  it.each([
    ['fill', 2, 2, 4],
    ['skip', 0, 0, 6],
  ])('after a downtime of 5 hourly ticks, %s (limit %d) enqueues %d past ticks and skips %d', async (catchUp, limit, enqueued, skipped) => {
    const name = `hourly-${catchUp}`;
    await request(t.url)
      .post('/schedules')
      .send({ name, cron: '0 0 * * * *', timeZone: 'UTC', type: 'report.build', catchUp, catchUpLimit: limit, misfireGraceMs: 1_000 })
      .expect(201);
    // As if every instance had been down for five hours: the cursor is six ticks back.
    const { rows } = await t.pg.query<{ hour: Date }>(
      `UPDATE action_schedules SET next_tick_at = date_trunc('hour', now()) - interval '5 hours' WHERE name = $1 RETURNING date_trunc('hour', now()) AS hour`,
      [name],
    );
    const hour = rows[0].hour.getTime();
    await waitFor(async () => (await t.pg.query(`SELECT 1 FROM action_schedules WHERE name = $1 AND next_tick_at > now()`, [name])).rowCount === 1, 10_000);
    const ticks = await ticksOf(name);
    expect(ticks.map((k) => (hour - k.tick_at.getTime()) / 3_600_000)).toEqual(enqueued === 2 ? [1, 0] : []);
    expect(ticks.every((k) => k.action_id !== null)).toBe(true);
    const schedule = await request(t.url).get(`/schedules/${name}`).expect(200);
    expect(schedule.body).toMatchObject({ skippedTicks: skipped, nextRunAt: new Date(hour + 3_600_000).toISOString() });
    await request(t.url).delete(`/schedules/${name}`).expect(204);
    await request(t.url).get(`/schedules/${name}`).expect(404);
  });

  it('refuses an invalid cron, time zone or name twice, naming the field', async () => {
    const base = { name: 'bad', cron: '* * * * *', timeZone: 'UTC', type: 'report.build' };
    const cron = await request(t.url)
      .post('/schedules')
      .send({ ...base, cron: '61 * * * *' });
    expect(cron.status).toBe(400);
    expect(String(cron.body.message)).toContain(`cron "61 * * * *" in timeZone "UTC" is invalid: Field value (61) is out of range`);
    const zone = await request(t.url)
      .post('/schedules')
      .send({ ...base, timeZone: 'Mars/Olympus' });
    expect(zone.status).toBe(400);
    expect(JSON.stringify(zone.body.message)).toContain('timeZone');
    const missing = await request(t.url).post('/schedules').send({ name: 'x', cron: '* * * * *', type: 'report.build' });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body.message)).toContain('timeZone');
    await request(t.url)
      .post('/schedules')
      .send({ ...base, name: 'twice', cron: '0 0 1 1 *' })
      .expect(201);
    const again = await request(t.url)
      .post('/schedules')
      .send({ ...base, name: 'twice', cron: '0 0 1 1 *' });
    expect(again.status).toBe(409);
    expect(again.body.message).toContain('name');
  });

  it('refuses, with 400 naming the field and nothing stored, a cron that never fires, a zone that is not IANA, a type without a handler', async () => {
    const base = { name: 'a8', cron: '0 0 * * *', timeZone: 'UTC', type: 'report.build' };
    const never = await request(t.url)
      .post('/schedules')
      .send({ ...base, cron: '0 0 30 2 *' })
      .expect(400);
    expect(never.body.message).toEqual(['cron "0 0 30 2 *" in timeZone "UTC" never fires: no date matches it in the next 8 years']);
    for (const timeZone of ['local', 'system', '+01:00', 'Mars/Olympus']) {
      const zone = await request(t.url)
        .post('/schedules')
        .send({ ...base, timeZone })
        .expect(400);
      expect(zone.body.message).toEqual(['timeZone must be an IANA time zone name such as Europe/Paris or UTC']);
    }
    const unknown = await request(t.url)
      .post('/schedules')
      .send({ ...base, type: 'no.such.handler' })
      .expect(400);
    expect(unknown.body.message).toEqual([expect.stringMatching(/^type "no\.such\.handler" has no registered handler \(known: .*report\.build/)]);
    const reserved = await request(t.url)
      .post('/schedules')
      .send({ ...base, lockId: '-9223372036854775806' })
      .expect(400);
    expect(reserved.body.message).toEqual([expect.stringContaining('lockId is reserved for string group keys')]);
    // One message per field, whatever is wrong with it.
    const missing = await request(t.url).post('/schedules').send({}).expect(400);
    expect(missing.body.message).toEqual([
      'name is required: a string of 1..200 characters without the NUL character',
      'cron is required: a string of 1..200 characters without the NUL character',
      'timeZone is required: an IANA time zone name such as Europe/Paris or UTC',
      'type is required: 1..200 characters of letters, digits, ".", "_", "-", ":"',
    ]);
    const wrong = await request(t.url).post('/schedules').send({ name: 5, cron: [], timeZone: 7, type: ' ', maxAttempts: '3' }).expect(400);
    expect(wrong.body.message).toHaveLength(5);
    expect((await t.pg.query(`SELECT 1 FROM action_schedules WHERE name = 'a8'`)).rowCount).toBe(0);
    await request(t.url)
      .post('/schedules')
      .send({ ...base, timeZone: 'Europe/Paris', cron: '0 0 29 2 *' })
      .expect(201);
    await request(t.url).delete('/schedules/a8').expect(204);
    // A name in the path that PostgreSQL text cannot hold is bad input, not a 500.
    expect((await request(t.url).get('/schedules/a%00b').expect(400)).body.message).toEqual(['name must not contain the NUL character']);
    await request(t.url).delete('/schedules/a%00b').expect(400);
  });
});
