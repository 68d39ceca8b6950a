import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { QUEUE_APPLICATION_NAME } from '../../release/release-version';
import { applyDefinitions } from '../apply-definitions';
import { buildDataSourceOptions } from '../data-source-options';
import { parsePartitionSchema } from './partition-of-group';

/** What provisionCitusPartition did (for the start-up log). */
export interface ProvisionedPartition {
  schema: string;
  /** `host:port` of the node the partition was placed on. */
  node: string;
  /** Functions of the schema made distributed (present on every node). */
  functions: number;
}

/** Runs `sql` on a connection of its own to `url`, closed before returning. */
async function onNode<T>(url: string, run: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5_000, application_name: QUEUE_APPLICATION_NAME });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** The URL of node `host:port` of the cluster, with the coordinator URL's user, password and database. */
export function nodeUrl(coordinatorUrl: string, host: string, port: number): string {
  const url = new URL(coordinatorUrl);
  url.hostname = host;
  url.port = String(port);
  return url.toString();
}

/** Whether `schema` is a Citus distributed schema (listed by citus_schemas). */
export async function isDistributedSchema(client: Pick<Client, 'query'>, schema: string): Promise<boolean> {
  const { rows } = await client.query<{ found: boolean }>(
    'SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_schema WHERE schemaid = to_regnamespace(quote_ident($1))) AS found',
    [schema],
  );
  return rows[0].found;
}

/** `host:port` of the node holding distributed schema `schema`'s tables (its `actions` shard). */
export async function partitionNode(client: Pick<Client, 'query'>, schema: string): Promise<{ host: string; port: number }> {
  const { rows } = await client.query<{ host: string; port: number }>(
    `SELECT nodename AS host, nodeport AS port FROM citus_shards WHERE table_name = format('%I.actions', $1::text)::regclass`,
    [schema],
  );
  if (rows.length !== 1) throw new Error(`partition ${schema} has ${rows.length} placements of its actions table, expected 1`);
  return rows[0];
}

/**
 * Makes `schema` a partition of the queue on a Citus cluster, once
 * (docs/scale-out.md, "How a partition is made"). In order:
 *
 * 1. creates the schema as a plain (not yet distributed) schema of the
 *    coordinator, with schema-based sharding off for that statement;
 * 2. applies every migration and the current definitions to it with
 *    `citus.enable_ddl_propagation` off: as on a plain PostgreSQL server
 *    (Citus refuses some of the released migrations' DDL on distributed
 *    objects, e.g. migration 020's `ALTER FUNCTION … SET search_path FROM
 *    CURRENT`);
 * 3. `citus_schema_distribute`: its tables become single-shard tables placed
 *    together on one node, triggers included (`citus.enable_unsafe_triggers`
 *    for this session: a trigger of the queue touches only its own
 *    partition's tables, all on the same node);
 * 4. makes each of its functions distributed (`create_distributed_function`),
 *    so the triggers' helpers exist on every node; one statement each, in
 *    rounds, since a SQL function is checked against the ones it calls;
 * 5. on every node, creates the standalone sequences Citus does not carry
 *    (actions_late_heads_seq) and gives every sequence of the schema the
 *    coordinator's range and position: Citus gives a distributed sequence a
 *    range per node (node group << 48), which would move the interned group
 *    keys out of their reserved range and let a moved partition take ids
 *    below its old ones;
 * 6. records the partition count and prefix for aq_enqueue
 *    (`ALTER DATABASE … SET aq.citus_partitions / aq.citus_prefix`).
 *
 * Runs under the caller's migration lock (MigrationsService.migrate).
 *
 * @param url the coordinator's URL (DATABASE_URL).
 * @param schema the partition, `<prefix>_p<index>`.
 * @param partitions CITUS_PARTITIONS.
 * @throws Error when the schema is not named like a partition, its index is
 *   not below `partitions`, a step fails (the message names it), or a
 *   function cannot be distributed.
 */
export async function provisionCitusPartition(url: string, schema: string, partitions: number): Promise<ProvisionedPartition> {
  const parsed = parsePartitionSchema(schema);
  if (!parsed || parsed.index >= partitions) {
    throw new Error(
      `QUEUE_MODE=citus: DATABASE_SCHEMA "${schema}" is not a partition <prefix>_p<index> with index below CITUS_PARTITIONS=${partitions} (docs/scale-out.md)`,
    );
  }
  await onNode(url, async (c) => {
    await c.query('SET citus.enable_schema_based_sharding TO off');
    const { rows } = await c.query<{ exists: boolean }>('SELECT to_regnamespace(quote_ident($1)) IS NOT NULL AS exists', [schema]);
    if (!rows[0].exists) await c.query(`CREATE SCHEMA ${c.escapeIdentifier(schema)}`);
  });
  const options = buildDataSourceOptions(url, 1, { schema, pooler: 'none' });
  const dataSource = new DataSource({
    ...options,
    extra: { ...(options.extra as object), options: '-c citus.enable_ddl_propagation=off' },
  } as typeof options);
  await dataSource.initialize();
  try {
    await dataSource.runMigrations({ transaction: 'each' });
    await applyDefinitions(dataSource, schema, { lockHeld: true });
  } finally {
    await dataSource.destroy();
  }
  return onNode(url, async (c) => {
    // The queue's triggers read and write other tables of their own partition, which Citus calls unsafe in
    // general; here every table of the partition is on the trigger's node (one colocated schema).
    await c.query('SET citus.enable_unsafe_triggers TO on');
    await c.query('SELECT citus_schema_distribute($1)', [schema]);
    const functions = await distributeFunctions(c, schema);
    const { rows: nodes } = await c.query<{ host: string; port: number }>(
      `SELECT nodename AS host, nodeport AS port FROM pg_dist_node WHERE isactive AND noderole = 'primary' AND groupid <> 0`,
    );
    const { rows: sequences } = await c.query<{
      name: string;
      type: string;
      min: string;
      max: string;
      start: string;
      next: string;
      owned: boolean;
      cycle: boolean;
    }>(
      `SELECT s.sequencename AS name, s.data_type::text AS type, s.min_value::text AS min, s.max_value::text AS max, s.start_value::text AS start,
              coalesce(s.last_value + s.increment_by, s.start_value)::text AS next, s.cycle,
              EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = format('%I.%I', s.schemaname, s.sequencename)::regclass AND d.deptype IN ('a', 'i')) AS owned
       FROM pg_sequences s WHERE s.schemaname = $1`,
      [schema],
    );
    for (const node of nodes) {
      await onNode(nodeUrl(url, node.host, node.port), async (n) => {
        await n.query('SET citus.enable_ddl_propagation TO off');
        for (const s of sequences) {
          const name = `${n.escapeIdentifier(schema)}.${n.escapeIdentifier(s.name)}`;
          if (!s.owned) await n.query(`CREATE SEQUENCE IF NOT EXISTS ${name} AS ${s.type}${s.cycle ? ' CYCLE' : ''}`);
          await n.query(`ALTER SEQUENCE ${name} AS ${s.type} MINVALUE ${s.min} MAXVALUE ${s.max} START WITH ${s.start} RESTART WITH ${s.next}`);
        }
      });
    }
    const { rows: db } = await c.query<{ name: string }>('SELECT current_database() AS name');
    await c.query(`ALTER DATABASE ${c.escapeIdentifier(db[0].name)} SET aq.citus_partitions = ${partitions}`);
    await c.query(`ALTER DATABASE ${c.escapeIdentifier(db[0].name)} SET aq.citus_prefix = ${c.escapeLiteral(parsed.prefix)}`);
    const node = await partitionNode(c, schema);
    return { schema, node: `${node.host}:${node.port}`, functions };
  });
}

/**
 * Makes every function of `schema` distributed, in rounds: a SQL function is
 * checked against the functions it calls when it is created on the other
 * nodes, so one whose callee is not there yet fails this round and succeeds
 * in a later one. One statement per transaction (a failed remote command
 * aborts the whole distributed transaction).
 *
 * @returns how many it distributed.
 * @throws Error naming the functions that could not be distributed.
 */
async function distributeFunctions(c: Client, schema: string): Promise<number> {
  let done = 0;
  for (;;) {
    const { rows } = await c.query<{ signature: string }>(
      `SELECT p.oid::regprocedure::text AS signature FROM pg_proc p
       WHERE p.pronamespace = to_regnamespace(quote_ident($1))
         AND NOT EXISTS (SELECT 1 FROM pg_dist_object o WHERE o.classid = 'pg_proc'::regclass AND o.objid = p.oid)`,
      [schema],
    );
    if (rows.length === 0) return done;
    const failures: string[] = [];
    for (const { signature } of rows) {
      try {
        await c.query('SELECT create_distributed_function($1::regprocedure)', [signature]);
        done++;
      } catch (error) {
        failures.push(`${signature}: ${(error as Error).message}`);
      }
    }
    if (failures.length === rows.length) throw new Error(`cannot distribute the functions of ${schema}: ${failures.join('; ')}`);
  }
}
