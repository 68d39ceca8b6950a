import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { loadSettings } from '../../src/config/settings';
import { applyDefinitions, DEFINITIONS_DIR, NewerDefinitionsError, readDefinitions, shippedDefinitions } from '../../src/database/apply-definitions';
import { buildDataSourceOptions, MIGRATIONS } from '../../src/database/data-source-options';
import { DEFINITION_MANIFEST } from '../../src/database/functions/definition-manifest';
import { MigrationsService } from '../../src/database/migrations.service';
import { DEFAULT_PLACEMENT } from '../../src/database/queue-schema';
import { RELEASE_VERSION } from '../../src/release/release-version';
import { withTestDatabase } from '../support';

const SCHEMA = DEFAULT_PLACEMENT.schema;

/** Every function's definition and every view's query in the queue's schema, by name (as the catalog prints them). */
async function definitionsIn(c: Client): Promise<Map<string, string>> {
  const { rows } = await c.query<{ name: string; def: string }>(
    `SELECT p.proname AS name, pg_get_functiondef(p.oid) AS def FROM pg_proc AS p WHERE p.pronamespace = $1::regnamespace
     UNION ALL
     SELECT c.relname, pg_get_viewdef(c.oid, true) FROM pg_class AS c WHERE c.relnamespace = $1::regnamespace AND c.relkind = 'v'
     ORDER BY 1`,
    [SCHEMA],
  );
  return new Map(rows.map((r) => [r.name, r.def]));
}

/** A DataSource on `url` in the queue's schema, holding `migrations` (default all). */
async function dataSourceOn(url: string, migrations = MIGRATIONS): Promise<DataSource> {
  return new DataSource({ ...buildDataSourceOptions(url, 2, DEFAULT_PLACEMENT), migrations }).initialize();
}

describe('the definitions layer (src/database/functions, applied after the migrations)', () => {
  describe('on a new install', () => {
    const db = withTestDatabase('defs_fresh');

    it('records every definition with its file checksum and this release', async () => {
      const c = await db.connect();
      const { rows } = await c.query<{ name: string; sha256: string; release: string }>('SELECT name, sha256, release FROM schema_definitions ORDER BY name');
      expect(rows).toEqual(
        shippedDefinitions()
          .map((d) => ({ name: d.name, sha256: d.sha256, release: RELEASE_VERSION }))
          .sort((a, b) => (a.name < b.name ? -1 : 1)),
      );
      // 047's rule of losses, as its definition file states it last.
      const { rows: fn } = await c.query<{ src: string }>(`SELECT prosrc AS src FROM pg_proc WHERE oid = 'aq_end_lost_attempts'::regproc`);
      expect(fn[0].src).toContain('singled_losses');
    });

    it('re-applies only a definition whose checksum changed, and nothing when none did', async () => {
      const ds = await dataSourceOn(db.url);
      const c = await db.connect();
      try {
        expect(await applyDefinitions(ds, SCHEMA, { lockHeld: false })).toEqual([]);
        await c.query(`UPDATE schema_definitions SET sha256 = 'edited elsewhere', release = '0.3.0' WHERE name = 'aq_finish_attempts'`);
        expect(await applyDefinitions(ds, SCHEMA, { lockHeld: false })).toEqual(['aq_finish_attempts']);
        const { rows } = await c.query(`SELECT sha256, release FROM schema_definitions WHERE name = 'aq_finish_attempts'`);
        expect(rows).toEqual([{ sha256: shippedDefinitions().find((d) => d.name === 'aq_finish_attempts')!.sha256, release: RELEASE_VERSION }]);
      } finally {
        await ds.destroy();
      }
    });

    it('applies an edited file: the function changes, the others are left alone', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'aq-definitions-'));
      const ds = await dataSourceOn(db.url);
      const c = await db.connect();
      try {
        cpSync(DEFINITIONS_DIR, dir, { recursive: true });
        const file = join(dir, 'aq_roll_up_activity.sql');
        const edited = readFileSync(file, 'utf8').replace(/\nBEGIN\n/, '\nBEGIN\n  -- edited: one definition changes by editing its file\n');
        expect(edited).toContain('-- edited');
        writeFileSync(file, edited);
        const before = await c.query(`SELECT max(applied_at) AS at FROM schema_definitions WHERE name <> 'aq_roll_up_activity'`);
        expect(await applyDefinitions(ds, SCHEMA, { lockHeld: false, definitions: readDefinitions(dir) })).toEqual(['aq_roll_up_activity']);
        const { rows } = await c.query<{ src: string }>(`SELECT prosrc AS src FROM pg_proc WHERE oid = 'aq_roll_up_activity'::regproc`);
        expect(rows[0].src).toContain('-- edited: one definition changes by editing its file');
        expect((await c.query(`SELECT max(applied_at) AS at FROM schema_definitions WHERE name <> 'aq_roll_up_activity'`)).rows).toEqual(before.rows);
        // And back: this release's file.
        expect(await applyDefinitions(ds, SCHEMA, { lockHeld: false })).toEqual(['aq_roll_up_activity']);
      } finally {
        await ds.destroy();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    // Seen failing by removing the refuseNewerDefinitions call from
    // MigrationsService.refuseNewerSchema (start-up went on) and from applyDefinitions (the row was overwritten).
    it('refuses to start on, or to downgrade, a definition applied by a newer release (compared as numbers)', async () => {
      const c = await db.connect();
      await c.query(`UPDATE schema_definitions SET sha256 = 'newer', release = '0.10.0' WHERE name = 'aq_claim_actions'`);
      const ds = await dataSourceOn(db.url);
      try {
        for (const runMigrations of [true, false]) {
          const service = new MigrationsService(
            { dataSource: ds, url: db.url, owned: true, placement: DEFAULT_PLACEMENT },
            { database: { url: db.url }, runMigrations },
            loadSettings({}),
          );
          await expect(service.onModuleInit()).rejects.toThrow(
            `The action queue's definitions in this database are newer than release ${RELEASE_VERSION} (aq_claim_actions (0.10.0) were applied by a later release)`,
          );
        }
        await expect(applyDefinitions(ds, SCHEMA, { lockHeld: false })).rejects.toThrow(NewerDefinitionsError);
        // The command line reads the same state (schema-version, and its refusal to run commands).
        const state = await new MigrationsService(
          { dataSource: ds, url: db.url, owned: true, placement: DEFAULT_PLACEMENT },
          { database: { url: db.url }, runMigrations: false },
          loadSettings({}),
        ).schemaState();
        expect(state.newer).toEqual(['definition aq_claim_actions (0.10.0)']);
        expect((await c.query(`SELECT sha256 FROM schema_definitions WHERE name = 'aq_claim_actions'`)).rows).toEqual([{ sha256: 'newer' }]);
        // An older release's row is upgraded, as any changed checksum.
        await c.query(`UPDATE schema_definitions SET release = '0.3.9' WHERE name = 'aq_claim_actions'`);
        expect(await applyDefinitions(ds, SCHEMA, { lockHeld: false })).toEqual(['aq_claim_actions']);
      } finally {
        await ds.destroy();
      }
    });
  });

  // Seen failing with a restore that ignored 020's DO block: every function
  // created before 020 came back without its pinned search_path.
  describe("048's down migration", () => {
    const released = withTestDatabase('defs_released', { migrated: false });
    const current = withTestDatabase('defs_down', { migrated: false });

    it("restores exactly the functions and views of a database migrated to 047 (0.3's and 047's), then 047's down runs", async () => {
      const beforeLayer = MIGRATIONS.findIndex((m) => m.name === 'SingledLosses1764460800047');
      const old = await dataSourceOn(released.url, MIGRATIONS.slice(0, beforeLayer + 1));
      try {
        await old.query(`CREATE SCHEMA IF NOT EXISTS ${SCHEMA}`);
        await old.runMigrations({ transaction: 'each' });
      } finally {
        await old.destroy();
      }
      const ds = await dataSourceOn(current.url);
      try {
        await ds.query(`CREATE SCHEMA IF NOT EXISTS ${SCHEMA}`);
        await ds.runMigrations({ transaction: 'each' });
        await applyDefinitions(ds, SCHEMA, { lockHeld: false });
        const c = await current.connect();
        expect((await definitionsIn(c)).size).toBe(DEFINITION_MANIFEST.length);
        // Down to 048 included (the later ones first, as an operator reverts them).
        const layer = MIGRATIONS.findIndex((m) => m.name === 'DefinitionsLayer1764460800048');
        for (let i = MIGRATIONS.length; i > layer; i--) await ds.undoLastMigration({ transaction: 'each' });
        expect(await definitionsIn(c)).toEqual(await definitionsIn(await released.connect()));
        expect((await c.query(`SELECT to_regclass('schema_definitions') AS t`)).rows).toEqual([{ t: null }]);
        await ds.undoLastMigration({ transaction: 'each' }); // 047
        await ds.runMigrations({ transaction: 'each' });
        expect(await applyDefinitions(ds, SCHEMA, { lockHeld: false })).toEqual([...DEFINITION_MANIFEST]);
      } finally {
        await ds.destroy();
      }
    });
  });
});
