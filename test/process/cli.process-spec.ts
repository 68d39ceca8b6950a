import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { MIGRATIONS } from '../../src/database/migrations';
import { RELEASE_VERSION } from '../../src/release/release-version';
import { freePort, insertAction, waitFor, withTestDatabase } from '../support';

/** The built command line, as the package's `bin` runs it (built by the process project's globalSetup). */
const CLI_MAIN = join(__dirname, '..', '..', 'dist', 'src', 'cli', 'main.js');

/** What one run of the command line did. */
interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * Runs `node dist/src/cli/main.js <args>` as its own process with the given
 * settings (and none of the jest process's queue settings) and waits for it to exit.
 */
function cli(args: string[], env: Record<string, string>): Promise<CliRun> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(DATABASE_|LISTEN_DATABASE_URL$)/.test(name)));
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI_MAIN, ...args], { env: { ...base, ...env }, timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** The one JSON document a `--json` run printed on stdout (fails the test on anything else). */
function jsonOf(run: CliRun): Record<string, unknown> {
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

/**
 * The command line (`ordered-action-queue <command>`, src/cli/) as operators
 * and scripts run it: real processes against real PostgreSQL, with the
 * service's settings, each command's text and `--json` output, and the exit
 * codes of docs/operations.md ("Command line"). Checked to fail: with
 * migrate.command.ts calling schemaState() instead of onModuleInit() (nothing
 * applied) the migrate tests fail, and with bulk-command.ts passing `dryRun:
 * false` whatever `--apply` says the dry-run test fails.
 */
describe('command line', () => {
  describe('on a database the queue has not migrated', () => {
    const db = withTestDatabase('cli_empty', { migrated: false });

    it('lists what migrate would run without changing anything, refuses other commands with exit 4, then migrates as start-up does', async () => {
      const env = { DATABASE_URL: db.url };
      const names = MIGRATIONS.map((m) => m.name);

      const dry = await cli(['migrate', '--dry-run', '--json'], env);
      expect(dry).toMatchObject({ code: 0, stderr: '' });
      expect(jsonOf(dry)).toEqual({ schema: 'action_queue', dryRun: true, migrations: names, release01Conversion: false });
      const c = await db.connect();
      const schemas = async () => (await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = 'action_queue'`)).rows[0].n;
      expect(await schemas()).toBe(0);

      const status = await cli(['status'], env);
      expect(status.code).toBe(4);
      expect(status.stdout).toBe('');
      expect(status.stderr).toContain('is not migrated: run "ordered-action-queue migrate"');

      const before = await cli(['schema-version', '--json'], env);
      expect(before.code).toBe(4);
      expect(jsonOf(before)).toMatchObject({ schema: 'action_queue', applied: 0, known: names.length, pending: names, newer: [], runnable: false });

      const applied = await cli(['migrate'], env);
      expect(applied).toMatchObject({ code: 0, stderr: '' });
      expect(applied.stdout).toContain(`Applied ${names.length} migrations to schema "action_queue"`);
      const recorded = await c.query<{ name: string }>(`SELECT name FROM action_queue.typeorm_migrations ORDER BY id`);
      expect(recorded.rows.map((r) => r.name)).toEqual(names);

      const after = await cli(['schema-version', '--json'], env);
      expect(after.code).toBe(0);
      expect(jsonOf(after)).toMatchObject({ applied: names.length, latestApplied: names[names.length - 1], pending: [], runnable: true });
      const again = await cli(['migrate', '--dry-run'], env);
      expect(again).toMatchObject({ code: 0 });
      expect(again.stdout).toContain('Nothing to apply');
    }, 60_000);

    it('refuses a schema a later release migrated with exit 4, also for migrate', async () => {
      const c = await db.connect();
      await c.query(`INSERT INTO action_queue.typeorm_migrations (timestamp, name) VALUES (1764460809999, 'FromTheFuture1764460809999')`);
      try {
        const env = { DATABASE_URL: db.url };
        const version = await cli(['schema-version', '--json'], env);
        expect(version.code).toBe(4);
        expect(jsonOf(version)).toMatchObject({ newer: ['FromTheFuture1764460809999'], runnable: false });
        const migrate = await cli(['migrate'], env);
        expect(migrate.code).toBe(4);
        expect(migrate.stderr).toContain('newer than release');
      } finally {
        await c.query(`DELETE FROM action_queue.typeorm_migrations WHERE name = 'FromTheFuture1764460809999'`);
      }
    }, 30_000);
  });

  describe('on a migrated queue', () => {
    const db = withTestDatabase('cli');
    const env = (): Record<string, string> => ({ DATABASE_URL: db.url });

    it('status prints the /stats figures, as text and as the same JSON document', async () => {
      const c = await db.connect();
      for (let i = 0; i < 3; i++) await insertAction(c, 900 + i, 'cli.status');
      const json = await cli(['status', '--json'], env());
      expect(json).toMatchObject({ code: 0, stderr: '' });
      const stats = jsonOf(json);
      expect(stats).toMatchObject({ byStatus: { pending: 3, running: 0 }, blockedGroups: 0, paused: { queue: false, types: 0, groups: 0 } });
      expect(Object.keys(stats).sort()).toEqual(['blockedGroups', 'byStatus', 'estimated', 'oldestPendingAgeSeconds', 'paused', 'pendingBreakdown', 'tenants']);
      const text = await cli(['status'], env());
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/^pending\s+3 \(due 3,/m);
      await c.query(`DELETE FROM actions WHERE type = 'cli.status'`);
    }, 30_000);

    it('pauses and resumes a type, a group by lock id, a group by key, the whole queue and a tenant, as the pauses REST does', async () => {
      const c = await db.connect();
      const paused = async () =>
        (await c.query<{ scope: string; type: string | null; lock_id: string | null }>(`SELECT scope, type, lock_id::text FROM action_pauses ORDER BY id`))
          .rows;

      const type = await cli(['pause', '--type', 'invoice.send', '--reason', 'downstream down', '--json'], env());
      expect(type).toMatchObject({ code: 0, stderr: '' });
      expect(jsonOf(type)).toMatchObject({ scope: 'type', type: 'invoice.send', lockId: null, reason: 'downstream down', until: null });
      const group = await cli(['pause', '--lock-id', '26', '--for-ms', '600000'], env());
      expect(group.code).toBe(0);
      expect(group.stdout).toMatch(/^Paused group 26 until \d{4}-/);
      expect((await cli(['pause', '--group-key', 'tenant:42'], env())).code).toBe(0);
      expect((await cli(['pause', '--queue'], env())).code).toBe(0);
      expect(await paused()).toEqual([
        { scope: 'type', type: 'invoice.send', lock_id: null },
        { scope: 'group', type: null, lock_id: '26' },
        { scope: 'group', type: null, lock_id: expect.any(String) },
        { scope: 'queue', type: null, lock_id: null },
      ]);
      expect(jsonOf(await cli(['status', '--json'], env())).paused).toEqual({ queue: true, types: 1, groups: 2 });

      for (const target of [['--type', 'invoice.send'], ['--lock-id', '26'], ['--group-key', 'tenant:42'], ['--queue']]) {
        const run = await cli(['resume', ...target, '--json'], env());
        expect(run).toMatchObject({ code: 0, stderr: '' });
        expect(jsonOf(run)).toMatchObject({ resumed: true });
      }
      expect(await paused()).toEqual([]);
      // Resuming what is not paused changes nothing and is no error.
      const again = await cli(['resume', '--type', 'invoice.send'], env());
      expect(again).toMatchObject({ code: 0, stdout: 'Type invoice.send was not paused; nothing changed.\n' });

      // A tenant (docs/tenants.md).
      const tenant = await cli(['pause', '--tenant', 'acme', '--json'], env());
      expect(tenant).toMatchObject({ code: 0, stderr: '' });
      expect(jsonOf(tenant)).toMatchObject({ scope: 'tenant', tenant: 'acme' });
      expect(await paused()).toEqual([{ scope: 'tenant', type: null, lock_id: null }]);
      expect(await cli(['resume', '--tenant', 'acme'], env())).toMatchObject({ code: 0, stdout: 'Resumed tenant acme.\n' });
      expect(await paused()).toEqual([]);
      const badTenant = await cli(['pause', '--tenant', 'no spaces'], env());
      expect(badTenant).toMatchObject({ code: 2, stdout: '' });
      expect(badTenant.stderr).toMatch(/^--tenant must be/);
    }, 60_000);

    it('retry and cancel by filter are dry runs unless --apply, and record the CLI as the actor', async () => {
      const c = await db.connect();
      const ids = [];
      for (let i = 0; i < 4; i++) ids.push(await insertAction(c, 700 + i, 'cli.bulk'));
      await c.query(`UPDATE actions SET status = 'failed', finished_at = now(), last_error = 'downstream 503' WHERE id = ANY($1::bigint[])`, [ids.slice(0, 2)]);
      const statuses = async () =>
        (await c.query<{ status: string }>(`SELECT status FROM actions WHERE type = 'cli.bulk' ORDER BY id`)).rows.map((r) => r.status);

      const dry = await cli(['retry', '--type', 'cli.bulk', '--json'], env());
      expect(dry).toMatchObject({ code: 0, stderr: '' });
      expect(jsonOf(dry)).toMatchObject({
        operation: 'retry',
        dryRun: true,
        filter: { type: 'cli.bulk' },
        matched: 2,
        applied: 0,
        actor: expect.stringMatching(/^cli(:|$)/),
      });
      const dryCancel = await cli(['cancel', '--type', 'cli.bulk'], env());
      expect(dryCancel.code).toBe(0);
      expect(dryCancel.stdout).toContain('4 matching actions would be cancelled. Nothing was changed; add --apply');
      expect(await statuses()).toEqual(['failed', 'failed', 'pending', 'pending']);

      const retried = await cli(['retry', '--error-contains', '503', '--apply', '--json'], env());
      expect(retried.code).toBe(0);
      expect(jsonOf(retried)).toMatchObject({ operation: 'retry', dryRun: false, matched: 2, applied: 2, error: null });
      expect(await statuses()).toEqual(['pending', 'pending', 'pending', 'pending']);

      const cancelled = await cli(['cancel', '--lock-id', '703', '--apply'], env());
      expect(cancelled.code).toBe(0);
      expect(cancelled.stdout).toMatch(/^Cancelled 1 of 1 matching action \(bulk operation \d+\)\.\n$/);
      expect(await statuses()).toEqual(['pending', 'pending', 'pending', 'cancelled']);
      await c.query(`DELETE FROM actions WHERE type = 'cli.bulk' AND status <> 'running'`);
    }, 60_000);

    it('exits 2 on a bad argument, naming it and printing the usage line, before sending anything', async () => {
      const unknown = await cli(['pause', '--lock', '26'], env());
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain("unknown option '--lock'");
      expect(unknown.stderr).toContain('Usage: ordered-action-queue pause [options]');

      const invalid = await cli(['pause', '--lock-id', 'twenty-six'], env());
      expect(invalid).toMatchObject({ code: 2, stdout: '' });
      expect(invalid.stderr).toMatch(/^--lock-id must be/);
      expect(invalid.stderr).toContain('Usage: ordered-action-queue pause [options]');

      const two = await cli(['resume', '--queue', '--type', 'x'], env());
      expect(two.code).toBe(2);
      expect(two.stderr).toContain('Give one target, not both --queue and --type');

      const status = await cli(['retry', '--status', 'pending'], env());
      expect(status.code).toBe(2);
      expect(status.stderr).toMatch(/^--status pending cannot be retried/);
      const none = await cli(['cancel'], env());
      expect(none.code).toBe(2);
      expect(none.stderr).toContain('Give at least one filter: --type');

      const command = await cli(['statu'], env());
      expect(command.code).toBe(2);
      expect(command.stderr).toContain("unknown command 'statu'");

      const noUrl = await cli(['status'], {});
      expect(noUrl.code).toBe(2);
      expect(noUrl.stderr).toMatch(/^DATABASE_URL is not set/);
      const badSetting = await cli(['status'], { DATABASE_URL: db.url, DATABASE_SCHEMA: 'Not-An-Identifier' });
      expect(badSetting.code).toBe(2);
      expect(badSetting.stderr).toContain('DATABASE_SCHEMA');

      // Nothing above reached the database: no pause, no audit row.
      const c = await db.connect();
      const { rows } = await c.query<{ pauses: number; audits: number }>(
        `SELECT (SELECT count(*) FROM action_pauses)::int AS pauses, (SELECT count(*) FROM action_bulk_operations WHERE filter->>'status' = 'pending')::int AS audits`,
      );
      expect(rows[0]).toEqual({ pauses: 0, audits: 0 });

      const help = await cli(['--help'], {});
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('schema-version');
    }, 60_000);

    it('runs as an executable of its own, as npx runs the bin, and names its connections', async () => {
      // The file itself, not node with it: its first line and mode make it runnable (the build sets both).
      const version = await new Promise<string>((resolve, reject) =>
        execFile(CLI_MAIN, ['--version'], { timeout: 30_000 }, (error, stdout) => (error ? reject(error) : resolve(stdout))),
      );
      expect(version.trim()).toBe(RELEASE_VERSION);
      const c = await db.connect();
      await c.query(`SELECT aq_pause_queue('seen by the cli')`);
      try {
        // A statement of the CLI that waits on a lock this test holds, so its connection can be seen.
        await c.query('BEGIN');
        await c.query(`LOCK TABLE action_pauses IN ACCESS EXCLUSIVE MODE`);
        const resume = cli(['resume', '--queue'], env());
        const cliName = `ordered-action-queue/${RELEASE_VERSION}:cli`;
        // From another connection: inside a transaction pg_stat_activity is read once, then kept.
        const watcher = await db.connect();
        const names = await waitFor(async () => {
          const { rows } = await watcher.query<{ name: string }>(`SELECT application_name AS name FROM pg_stat_activity WHERE datname = current_database()`);
          return rows.some((r) => r.name === cliName) && rows.map((r) => r.name);
        }, 10_000);
        expect(names).toContain(cliName);
        await c.query('COMMIT');
        expect(await resume).toMatchObject({ code: 0, stdout: 'Resumed the whole queue.\n' });
      } finally {
        await c.query('ROLLBACK').catch(() => undefined);
      }
    }, 30_000);

    it('exits 3 at once when nothing listens on the port', async () => {
      const port = await freePort();
      const run = await cli(['status', '--json'], { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/aq_nowhere` });
      expect(run).toMatchObject({ code: 3, stdout: '' });
      expect(run.stderr).toContain(`Could not connect to PostgreSQL at 127.0.0.1:${port}`);
      expect(run.stderr).toContain('ECONNREFUSED');
      // No retry loop as at the service's start-up (30 s): one attempt, refused at once (node's start included).
      expect(run.ms).toBeLessThan(10_000);
    }, 30_000);
  });
});
