import { Client } from 'pg';
import { partitionOfGroup } from '../../src/database/citus/partition-of-group';
import { CitusCluster, connect, launchTestApp, startCitusCluster, TEST_SERVER_URL } from '../support';

/**
 * The queue on a real Citus cluster (coordinator + 2 workers of its own,
 * test/support/citus-cluster.ts): the first failure on Citus (the migrations
 * stopped at 001 with "cannot insert multiple commands into a prepared
 * statement"), the making of partitions in QUEUE_MODE=citus, the insert
 * trigger running on a partition's node, aq_enqueue routing by the same hash
 * as the TypeScript side, and the start-up refusals of a mode that does not
 * fit the server (docs/scale-out.md).
 */
describe('Citus: partitions of the queue on a 3-node cluster', () => {
  let cluster: CitusCluster;
  let coordinator: Client;

  beforeAll(async () => {
    cluster = await startCitusCluster();
    coordinator = await connect(cluster.coordinator.url());
  });

  afterAll(async () => {
    await coordinator?.end();
    await cluster?.destroy();
  });

  it('applies a migration file on a distributed schema of the coordinator, DDL propagated (a whole file stopped there: several commands in one prepared statement)', async () => {
    const { DataSource } = await import('typeorm');
    const { buildDataSourceOptions } = await import('../../src/database/data-source-options');
    const { MIGRATIONS } = await import('../../src/database/migrations');
    // Created with schema-based sharding on: a distributed schema, whose DDL Citus forwards to the other nodes.
    const c = await connect(cluster.coordinator.url());
    try {
      await c.query('SET citus.enable_schema_based_sharding TO on');
      await c.query('CREATE SCHEMA first_failure');
    } finally {
      await c.end();
    }
    const dataSource = new DataSource({
      ...buildDataSourceOptions(cluster.coordinator.url(), 1, { schema: 'first_failure', pooler: 'none' }),
      migrations: [MIGRATIONS[0]],
    });
    await dataSource.initialize();
    try {
      await expect(dataSource.runMigrations({ transaction: 'each' })).resolves.toHaveLength(1);
    } finally {
      await dataSource.destroy();
    }
  });

  it('makes partitions in QUEUE_MODE=citus: each placed whole on one node, the insert trigger running there', async () => {
    const apps = [];
    try {
      for (const schema of ['aq_p0', 'aq_p1']) {
        apps.push(
          await launchTestApp(cluster.coordinator.url(), {
            QUEUE_MODE: 'citus',
            CITUS_PARTITIONS: '2',
            DATABASE_SCHEMA: schema,
            WORKER_ENABLED: 'false',
          }),
        );
      }
    } finally {
      for (const started of apps) await started.app.close();
    }
    const { rows: placed } = await coordinator.query<{ schema: string; port: number; nodes: number }>(
      `SELECT s.schema_name::text AS schema, min(sh.nodeport)::int AS port, count(DISTINCT sh.nodeport)::int AS nodes
       FROM citus_schemas s JOIN citus_shards sh ON sh.colocation_id = s.colocation_id WHERE s.schema_name::text LIKE 'aq_p%' GROUP BY 1 ORDER BY 1`,
    );
    expect(placed.map((p) => p.schema)).toEqual(['aq_p0', 'aq_p1']);
    for (const p of placed) expect(p.nodes).toBe(1);
    // Every function of a partition exists on every node (the triggers' helpers run where the shard is).
    for (const node of [cluster.coordinator, ...cluster.workers]) {
      const c = await connect(node.url());
      try {
        const { rows } = await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_proc WHERE pronamespace = 'aq_p0'::regnamespace`);
        expect(rows[0].n).toBeGreaterThan(40);
      } finally {
        await c.end();
      }
    }
    // A plain INSERT on the coordinator: the trigger on the partition's node takes ids in order, keeps the head, interns a key.
    const { rows } = await coordinator.query<{ id: string; is_head: boolean; lock_id: string }>(
      `INSERT INTO aq_p0.actions (lock_id, type, payload) VALUES (7, 't', '{}'), (7, 't', '{}') RETURNING id, is_head, lock_id`,
    );
    expect(rows.map((r) => [r.is_head, r.lock_id])).toEqual([
      [true, '7'],
      [false, '7'],
    ]);
    expect(BigInt(rows[1].id)).toBeGreaterThan(BigInt(rows[0].id));
    const { rows: keyed } = await coordinator.query<{ lock_id: string }>(
      `INSERT INTO aq_p0.actions (group_key, type) VALUES ('tenant:1', 't') RETURNING lock_id`,
    );
    // Interned lock ids stay in their reserved range on the partition's node (Citus gives sequences a range per node).
    expect(BigInt(keyed[0].lock_id)).toBeLessThanOrEqual(-9223090561878065153n);
  });

  it('routes aq_enqueue to the group partition by the same hash as partitionOfGroup, for lock ids and string keys', async () => {
    // A new session: the partitions' provisioning set aq.citus_partitions and aq.citus_prefix on the database.
    await coordinator.end();
    coordinator = await connect(cluster.coordinator.url());
    for (const group of [1, 2, 3, 4, 5, 26, -9, 'tenant:42', 'Aa', 'BB']) {
      const isKey = typeof group === 'string';
      const { rows } = await coordinator.query<{ queue_schema: string; action_id: string }>('SELECT * FROM aq_p0.aq_enqueue($1, $2, $3, $4)', [
        't',
        '{}',
        isKey ? null : group,
        isKey ? group : null,
      ]);
      expect(rows[0].queue_schema).toBe(`aq_p${partitionOfGroup(String(group), 2)}`);
      const { rows: sql } = await coordinator.query<{ p: number }>('SELECT aq_p0.aq_partition_of($1, 1024) AS p', [String(group)]);
      expect(sql[0].p).toBe(partitionOfGroup(String(group), 1024));
    }
  });

  it('refuses QUEUE_MODE=plain on a Citus database, and QUEUE_MODE=citus without Citus, naming the setting', async () => {
    await expect(launchTestApp(cluster.coordinator.url(), { DATABASE_SCHEMA: 'aq_plain', WORKER_ENABLED: 'false' })).rejects.toThrow(
      /has the citus extension .*set QUEUE_MODE=citus/,
    );
    const plain = await connect(TEST_SERVER_URL);
    const name = `aq_test_citus_refusal_${process.pid}`;
    try {
      await plain.query(`CREATE DATABASE ${name}`);
      const url = new URL(TEST_SERVER_URL);
      url.pathname = `/${name}`;
      await expect(
        launchTestApp(url.toString(), { QUEUE_MODE: 'citus', DATABASE_SCHEMA: 'aq_p0', CITUS_PARTITIONS: '2', WORKER_ENABLED: 'false' }),
      ).rejects.toThrow(/QUEUE_MODE=citus, but this database has no citus extension/);
    } finally {
      await plain.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await plain.end();
    }
  });
});
