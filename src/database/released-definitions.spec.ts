import { readdirSync } from 'node:fs';
import { SQL_MIGRATIONS_DIR } from './migrations/sql-file-migration';
import { definitionsOfMigrations, restoringStatements } from './released-definitions';

/** The released migrations 001..046 (release 0.3.0), in chain order. */
const RELEASED = readdirSync(SQL_MIGRATIONS_DIR)
  .map((f) => /^((\d{3})-.+)\.up\.sql$/.exec(f))
  .filter((m): m is RegExpExecArray => m !== null && Number(m[2]) <= 46)
  .map((m) => m[1])
  .sort();

describe('definitionsOfMigrations (the released functions and views, read from the files)', () => {
  const definitions = definitionsOfMigrations(RELEASED, SQL_MIGRATIONS_DIR);

  it('takes the last CREATE of each name, with the ALTERs after it', () => {
    expect(definitions.get('aq_finish_attempts')).toMatchObject({ file: '046-finish-without-guard', kind: 'function', alters: [] });
    const claim = definitions.get('aq_claim_actions')!;
    expect(claim.file).toBe('031-rate-limits');
    expect(claim.alters.map((a) => a.sql)).toEqual([expect.stringContaining('SET enable_sort = off')]);
    expect(definitions.get('action_groups')).toMatchObject({ kind: 'view', file: '039-group-head-records' });
    expect(definitions.get('aq_end_lost_attempts')!.file).toBe('042-ordered-chunks');
  });

  it('forgets what a later migration dropped', () => {
    // 039 dropped both (039-group-head-records.up.sql).
    expect(definitions.has('aq_lock_group')).toBe(false);
    expect(definitions.has('aq_actions_after_insert_head')).toBe(false);
  });

  it('restores with CREATE OR REPLACE, in the order the chain created them', () => {
    const statements = restoringStatements(definitions.values());
    expect(statements.every((s) => /^(CREATE OR REPLACE (FUNCTION|VIEW)|ALTER FUNCTION) /.test(s))).toBe(true);
    expect(statements.findIndex((s) => s.includes('FUNCTION aq_wake_workers('))).toBe(0);
    const claim = statements.findIndex((s) => s.startsWith('CREATE OR REPLACE FUNCTION aq_claim_actions('));
    expect(statements[claim + 1]).toMatch(/^ALTER FUNCTION aq_claim_actions\(/);
  });
});
