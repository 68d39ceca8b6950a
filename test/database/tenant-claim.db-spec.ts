import { Client } from 'pg';
import { CLAIM_ACTIONS_SQL } from '../../src/queue/sql/claim-actions.sql';
import { FINISH_ATTEMPTS_SQL } from '../../src/queue/sql/finish-attempts.sql';
import { withTestDatabase } from '../support';

const LEASE_MS = 60_000;

interface Claimed {
  id: string;
  attempts: number;
}

async function claim(c: Client, worker: string, types: string[], limit: number): Promise<Claimed[]> {
  const { rows } = await c.query({ ...CLAIM_ACTIONS_SQL, values: [worker, types, types.map(() => null), limit, LEASE_MS, false] });
  return rows;
}

async function finish(c: Client, worker: string, held: Claimed[], types: string[]): Promise<Claimed[]> {
  const { rows } = await c.query({
    ...FINISH_ATTEMPTS_SQL,
    values: [
      worker,
      held.map((h) => h.id),
      held.map((h) => h.attempts),
      held.map(() => 'done'),
      held.map(() => '{}'),
      held.map(() => null),
      held.map(() => null),
      held.map(() => 0),
      held.map(() => 'done'),
      held.map(() => 0),
      types,
      types.map(() => null),
      LEASE_MS,
      0,
    ],
  });
  return rows;
}

/** The tenants of actions, in the order given. */
async function tenantsOf(c: Client, ids: string[]): Promise<string[]> {
  const { rows } = await c.query<{ tenant: string }>(
    'SELECT a.tenant FROM unnest($1::bigint[]) WITH ORDINALITY AS x(id, n) JOIN actions AS a ON a.id = x.id ORDER BY x.n',
    [ids],
  );
  return rows.map((r) => r.tenant);
}

/**
 * The claim serves tenants in turn (src/database/functions/aq_claim_tenant_turns.sql,
 * docs/tenants.md): with two tenants backlogged the claims alternate by weight,
 * a tenant's max_running caps its running actions, a tenant pause and a tenant
 * rate limit hold its heads back, and strict order and one holder per group are
 * unchanged. Each test uses its own action type. Deterministic: one connection,
 * claims of one head at a time, whole weights.
 */
describe('tenants in the claim', () => {
  const db = withTestDatabase('tenant_claim');

  /** `groups` groups of `depth` actions each for `tenant`, the older tenant first. */
  async function backlog(c: Client, type: string, tenant: string, firstLockId: number, groups: number, depth: number): Promise<void> {
    await c.query(
      `INSERT INTO actions (lock_id, type, tenant, run_at)
       SELECT $3::bigint + g, $1, $2, now() - interval '1 hour'
       FROM generate_series(0, $4::int - 1) AS g, generate_series(1, $5::int) AS d ORDER BY g, d`,
      [type, tenant, firstLockId, groups, depth],
    );
  }

  it('alternates two backlogged tenants by weight (3:1), though one enqueued everything first', async () => {
    const type = 'tenants.weights';
    const c = await db.connect();
    await backlog(c, type, 'noisy', 1_000, 200, 2);
    await backlog(c, type, 'quiet', 2_000, 50, 2);
    await c.query(`INSERT INTO action_tenant_settings (tenant, weight) VALUES ('noisy', 3), ('quiet', 1)`);
    const order: string[] = [];
    for (let i = 0; i < 40; i++) {
      const got = await claim(c, 'w1', [type], 1);
      expect(got).toHaveLength(1);
      order.push(...(await tenantsOf(c, [got[0].id])));
    }
    // Per round: three of noisy, one of quiet.
    const quietAt = order.map((t, i) => (t === 'quiet' ? i : -1)).filter((i) => i >= 0);
    expect(quietAt).toHaveLength(10);
    for (let i = 1; i < quietAt.length; i++) expect(quietAt[i] - quietAt[i - 1]).toBe(4);
    // A claim of 16 takes 12 and 4.
    const many = await claim(c, 'w1', [type], 16);
    const tenants = await tenantsOf(
      c,
      many.map((m) => m.id),
    );
    expect(tenants.filter((t) => t === 'noisy')).toHaveLength(12);
    expect(tenants.filter((t) => t === 'quiet')).toHaveLength(4);
  });

  it('serves a new tenant within one round, behind 2 000 older heads of another', async () => {
    const type = 'tenants.noisy';
    const c = await db.connect();
    await backlog(c, type, 'big', 10_000, 2_000, 1);
    await c.query(`INSERT INTO actions (lock_id, type, tenant) SELECT 20000 + g, $1, 'small' FROM generate_series(1, 5) AS g`, [type]);
    const first = await claim(c, 'w1', [type], 10);
    expect(
      (
        await tenantsOf(
          c,
          first.map((m) => m.id),
        )
      ).filter((t) => t === 'small'),
    ).toHaveLength(5);
  });

  it('keeps one head per group and each group in order, with several tenants', async () => {
    const type = 'tenants.order';
    const c = await db.connect();
    await backlog(c, type, 't1', 30_000, 5, 4);
    await backlog(c, type, 't2', 31_000, 5, 4);
    await backlog(c, type, 'default', 32_000, 5, 4);
    const started: string[] = [];
    let held = await claim(c, 'w1', [type], 8);
    while (held.length > 0) {
      // One holder per group at any time.
      const { rows } = await c.query<{ n: number }>(
        `SELECT max(n)::int AS n FROM (SELECT count(*) AS n FROM actions WHERE type = $1 AND status = 'running' GROUP BY lock_id) AS x`,
        [type],
      );
      expect(rows[0].n).toBe(1);
      started.push(...held.map((h) => h.id));
      await finish(c, 'w1', held, []);
      held = await claim(c, 'w1', [type], 8);
    }
    expect(started).toHaveLength(60);
    const { rows } = await c.query<{ lock_id: string; ids: string[] }>(
      `SELECT lock_id::text, array_agg(id::text ORDER BY id) AS ids FROM actions WHERE type = $1 GROUP BY lock_id`,
      [type],
    );
    for (const g of rows) {
      const positions = g.ids.map((id) => started.indexOf(id));
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
    }
  });

  it("caps a tenant's running actions at max_running, claims and hand-offs alike", async () => {
    const type = 'tenants.cap';
    const c = await db.connect();
    await backlog(c, type, 'capped', 40_000, 20, 3);
    await c.query(`INSERT INTO action_tenant_settings (tenant, max_running) VALUES ('capped', 3)`);
    const running = async () =>
      (await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE type = $1 AND status = 'running'`, [type])).rows[0].n;
    const a = await claim(c, 'w1', [type], 10);
    expect(a).toHaveLength(3);
    const other = await db.connect();
    expect(await claim(other, 'w2', [type], 10)).toHaveLength(0);
    // The group's next action is not handed over on finish (it would be a fourth): it waits for a claim.
    const handed = await finish(c, 'w1', a.slice(0, 1), [type]);
    expect(handed.filter((r) => (r as unknown as { kind: string }).kind === 'claimed')).toHaveLength(0);
    expect(await running()).toBe(2);
    expect(await claim(other, 'w2', [type], 10)).toHaveLength(1);
    expect(await running()).toBe(3);
    await c.query(`UPDATE action_tenant_settings SET max_running = 5 WHERE tenant = 'capped'`);
    expect(await claim(other, 'w2', [type], 10)).toHaveLength(2);
    expect(await running()).toBe(5);
  });

  it('holds back a paused tenant and a tenant out of tokens, and the other tenants go on', async () => {
    const type = 'tenants.flow';
    const c = await db.connect();
    await backlog(c, type, 'paused', 50_000, 10, 1);
    await backlog(c, type, 'limited', 51_000, 10, 1);
    await backlog(c, type, 'free', 52_000, 10, 1);
    await c.query(`INSERT INTO action_pauses (scope, tenant) VALUES ('tenant', 'paused')`);
    await c.query(`INSERT INTO action_tenant_settings (tenant, rate_per_second, rate_burst, tokens) VALUES ('limited', 0.001, 2, 2)`);
    const got = await claim(c, 'w1', [type], 30);
    const tenants = await tenantsOf(
      c,
      got.map((g) => g.id),
    );
    expect(tenants.filter((t) => t === 'paused')).toHaveLength(0);
    expect(tenants.filter((t) => t === 'limited')).toHaveLength(2);
    expect(tenants.filter((t) => t === 'free')).toHaveLength(10);
    await c.query(`DELETE FROM action_pauses WHERE scope = 'tenant'`);
    expect(
      await tenantsOf(
        c,
        (await claim(c, 'w1', [type], 30)).map((g) => g.id),
      ),
    ).toEqual(Array(10).fill('paused'));
  });
});
