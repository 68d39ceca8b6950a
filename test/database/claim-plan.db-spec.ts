import { Client } from 'pg';
import { CLAIM_ACTIONS_SQL } from '../../src/queue/sql/claim-actions.sql';
import { claimParameters, claimSelectionSql, withTestDatabase } from '../support';

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Parent Relationship'?: string;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

/**
 * Deep groups (docs/architecture.md, "Who owns what"): the claim statement
 * must cost the same however deep a group's backlog is. One group holds 50 000 pending actions;
 * the claim must use the partial index of claimable heads and touch a handful
 * of buffers, not walk the backlog.
 */
describe('the claim statement with a deep group', () => {
  const DEEP = 50_000;
  const TYPES = ['instance.create', 'instance.update', 'instance.delete'];
  // A migrated database and no app: no worker, so nothing is claimed.
  const db = withTestDatabase('claimplan');
  let pg: Client;

  beforeAll(async () => {
    pg = await db.connect();
    // Small groups first so their heads have the smallest ids, then the deep one.
    await pg.query(`INSERT INTO actions (lock_id, type, payload)
                    SELECT 10 + g, 'instance.update', jsonb_build_object('g', g, 'i', i)
                    FROM generate_series(1, 5) g, generate_series(1, 3) i`);
    await pg.query(`INSERT INTO actions (lock_id, type, payload)
                    SELECT 1, 'instance.create', jsonb_build_object('i', i) FROM generate_series(1, ${DEEP}) i`);
    await pg.query(`INSERT INTO actions (lock_id, type) VALUES (NULL, 'instance.delete'), (NULL, 'instance.delete')`);
    await pg.query('VACUUM ANALYZE actions');
  }, 120_000);

  it('keeps exactly one head per group, the smallest holding id, mirrored in action_groups', async () => {
    const { rows } = await pg.query<{ lock_id: string; heads: number; head_id: string; min_id: string; group_head: string }>(`
      SELECT a.lock_id::text, count(*) FILTER (WHERE a.is_head)::int AS heads,
             min(a.id) FILTER (WHERE a.is_head)::text AS head_id, min(a.id)::text AS min_id,
             (SELECT g.head_id::text FROM action_groups g WHERE g.lock_id = a.lock_id) AS group_head
      FROM actions a WHERE a.holds_group AND a.lock_id IS NOT NULL
      GROUP BY a.lock_id ORDER BY a.lock_id`);
    expect(rows).toHaveLength(6);
    for (const r of rows) {
      expect({ lockId: r.lock_id, heads: r.heads, head: r.head_id, groupHead: r.group_head }).toEqual({
        lockId: r.lock_id,
        heads: 1,
        head: r.min_id,
        groupHead: r.min_id,
      });
    }
    const { rows: claimable } = await pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE is_head AND status = 'pending'`);
    // 6 group heads + 2 actions without a group: the claim index has 8 entries, not 50 017.
    expect(claimable[0].n).toBe(8);
  });

  it('plans the claim on actions_claimable_idx and touches few buffers', async () => {
    await pg.query('BEGIN');
    try {
      const { rows } = await pg.query<{ 'QUERY PLAN': { Plan: PlanNode; 'Execution Time': number }[] }>(
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${claimSelectionSql()}`,
        [TYPES, 10],
      );
      const [{ Plan: plan, 'Execution Time': executionMs }] = rows[0]['QUERY PLAN'];
      const all = nodes(plan);
      const onActions = all.filter((n) => n['Relation Name'] === 'actions');
      const scans = onActions.filter((n) => /Scan/.test(n['Node Type']));
      // The row selection reads the claimable index, never a sequential scan of actions.
      expect(scans.map((n) => n['Index Name'])).toContain('actions_claimable_idx');
      expect(scans.filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
      // Every head was claimed (8 <= limit 10), and no scan produced more rows than that.
      expect(plan['Actual Rows']).toBe(8);
      expect(Math.max(...scans.map((s) => s['Actual Rows'] ?? 0))).toBeLessThanOrEqual(8);
      // Buffers: reading the claimable index takes a few pages and selecting the
      // batch a few more, independent of the 50 000-deep group. (The lease,
      // aq_lease_selected, updates the 8 rows by primary key.) The paused-group
      // probe is a SubPlan in the index scan's filter (031, OFFSET 0): its
      // buffers (one probe of action_pauses_group_key per head) count in that
      // node, so they are taken out of the index's own.
      const buffers = (n: PlanNode) => (n['Shared Hit Blocks'] ?? 0) + (n['Shared Read Blocks'] ?? 0);
      const indexScan = scans.find((n) => n['Index Name'] === 'actions_claimable_idx')!;
      const subPlans = (indexScan.Plans ?? []).filter((n) => n['Parent Relationship'] === 'SubPlan');
      const selection = all.find((n) => n['Node Type'] === 'Limit')!;
      expect(buffers(indexScan) - subPlans.reduce((sum, n) => sum + buffers(n), 0)).toBeLessThanOrEqual(10);
      expect(buffers(selection)).toBeLessThanOrEqual(40);
      expect(buffers(plan)).toBeLessThan(400);
      expect(executionMs).toBeLessThan(100);
    } finally {
      await pg.query('ROLLBACK');
    }
  });

  it('claims one action per group, each its head, however deep the group', async () => {
    await pg.query('BEGIN');
    try {
      const { rows } = await pg.query<{ id: string; lock_id: string | null }>({
        text: CLAIM_ACTIONS_SQL.text,
        values: ['plan-test-worker', TYPES, TYPES.map(() => null), 100, 30_000, false],
      });
      const grouped = rows.filter((r) => r.lock_id !== null);
      expect(new Set(grouped.map((r) => r.lock_id)).size).toBe(grouped.length);
      expect(grouped).toHaveLength(6);
      expect(rows).toHaveLength(8);
      const { rows: heads } = await pg.query<{ id: string }>(`SELECT min(id)::text AS id FROM actions WHERE lock_id IS NOT NULL GROUP BY lock_id ORDER BY 1`);
      expect(grouped.map((r) => r.id).sort()).toEqual(heads.map((h) => h.id).sort());
      // A second claim in the same transaction finds nothing: the deep group's next action is not a head yet.
      const again = await pg.query({ text: CLAIM_ACTIONS_SQL.text, values: ['plan-test-worker', TYPES, TYPES.map(() => null), 100, 30_000, false] });
      expect(again.rows).toEqual([]);
    } finally {
      await pg.query('ROLLBACK');
    }
  });

  it("still touches few buffers after the deep group's head is released and the next of 50 000 is promoted", async () => {
    await pg.query('BEGIN');
    try {
      await pg.query(`UPDATE actions SET status = 'cancelled', finished_at = now()
                      WHERE id = (SELECT min(id) FROM actions WHERE lock_id = 1)`);
      const { rows } = await pg.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${claimSelectionSql()}`, [
        ['instance.create'],
        10,
      ]);
      const [{ Plan: plan }] = rows[0]['QUERY PLAN'];
      expect(plan['Actual Rows']).toBe(1);
      const selection = nodes(plan).find((n) => n['Node Type'] === 'Limit')!;
      expect((selection['Shared Hit Blocks'] ?? 0) + (selection['Shared Read Blocks'] ?? 0)).toBeLessThanOrEqual(40);
    } finally {
      await pg.query('ROLLBACK');
    }
  });

  it('would touch thousands of buffers with the rejected "no smaller unfinished id" filter (the measurement is sensitive)', async () => {
    const { rows } = await pg.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`
      EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)
      SELECT id FROM actions a
      WHERE status = 'pending'
        AND NOT EXISTS (SELECT 1 FROM actions b WHERE b.lock_id = a.lock_id AND b.holds_group AND b.id < a.id)
      ORDER BY id LIMIT 10`);
    const [{ Plan: plan }] = rows[0]['QUERY PLAN'];
    expect((plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0)).toBeGreaterThan(1_000);
  });

  it('runs, inside aq_claim_actions, exactly the selection that this test explains', async () => {
    const { rows } = await pg.query<{ src: string }>(`SELECT prosrc AS src FROM pg_proc WHERE proname = 'aq_claim_actions'`);
    const normalise = (sql: string) =>
      sql
        .replace(/--[^\n]*/g, '')
        .replace(/\s+/g, ' ')
        .replace(/\s*([(),;])\s*/g, '$1')
        .trim();
    const body = claimParameters(rows[0].src);
    expect(normalise(body)).toContain(normalise(claimSelectionSql()));
  });
});
