import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Makes `aq_lock_group` (called by the insert trigger) loop until it holds a
 * group row, because retention now deletes the rows of empty groups
 * (src/retention/sql/delete-empty-groups.sql.ts).
 *
 * Why: the first version ran SELECT ... FOR UPDATE, then (row absent) INSERT
 * ... ON CONFLICT DO NOTHING, then SELECT ... FOR UPDATE once more. When the
 * INSERT met a row that another transaction had just committed, and retention
 * deleted that (empty) row before the second SELECT, the SELECT found nothing
 * and the insert went on without any group lock: two producers could then both
 * make their action the head, or commit out of id order. Looping closes that
 * gap: the function returns only with a locked row, which it created itself if
 * need be. Each extra turn needs another concurrent delete of the row, so it
 * ends; in REPEATABLE READ a row committed after the snapshot makes the INSERT
 * raise a serialization failure (the old behaviour) instead of looping.
 */
export class RetryGroupLockAfterPurge1764461000000 implements MigrationInterface {
  name = 'RetryGroupLockAfterPurge1764461000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION aq_lock_group(p_lock_id bigint) RETURNS bigint
        LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        v_head bigint;
      BEGIN
        LOOP
          SELECT head_id INTO v_head FROM action_groups WHERE lock_id = p_lock_id FOR UPDATE;
          IF FOUND THEN
            RETURN v_head;
          END IF;
          -- Absent: create it. On conflict another transaction created it
          -- first, and the SELECT above, run again, waits for its lock; if
          -- retention deleted that row meanwhile, the next turn creates it.
          INSERT INTO action_groups (lock_id) VALUES (p_lock_id) ON CONFLICT DO NOTHING;
        END LOOP;
      END $$;
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION aq_lock_group(p_lock_id bigint) RETURNS bigint
        LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        v_head bigint;
      BEGIN
        SELECT head_id INTO v_head FROM action_groups WHERE lock_id = p_lock_id FOR UPDATE;
        IF NOT FOUND THEN
          INSERT INTO action_groups (lock_id) VALUES (p_lock_id) ON CONFLICT DO NOTHING;
          SELECT head_id INTO v_head FROM action_groups WHERE lock_id = p_lock_id FOR UPDATE;
        END IF;
        RETURN v_head;
      END $$;
    `);
  }
}
