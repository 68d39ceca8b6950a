import { INestApplication, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { InjectDataSource, TypeOrmModule } from '@nestjs/typeorm';
import { Client } from 'pg';
import { Column, DataSource, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { ActionContext, ActionHandler, ActionHandlerHost, ActionQueue, ActionQueueModule, QueuedAction } from '../../src';
import { MIGRATIONS } from '../../src/database/migrations';
import { migratedUpTo } from '../fixtures/previous-releases';
import { CapturingLogger, connect, createEmptyTestDatabase, startTestApp, TEST_SERVER_URL, TestDatabase, waitFor, withTestDatabase } from '../support';

/** The host app's own `actions` table, in public: a to-do list, nothing like the queue's. */
@Entity('actions')
class Todo {
  @PrimaryGeneratedColumn()
  id: number;

  @Column('text')
  title: string;

  @Column('boolean', { default: false })
  done: boolean;
}

/** A provider of the host that writes the host's `actions` table. */
@Injectable()
class TodoList {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  complete(id: number): Promise<unknown> {
    return this.dataSource.getRepository(Todo).update({ id }, { done: true });
  }
}

/** The queue's handler completes one of the host's to-dos. */
@ActionHandler('todo.complete')
class CompleteTodoHandler extends ActionHandlerHost {
  constructor(private readonly todos: TodoList) {
    super();
  }

  async handle(action: QueuedAction, _ctx: ActionContext) {
    await this.todos.complete(Number(action.payload.todoId));
    return { completed: action.payload.todoId };
  }
}

@Module({ imports: [TypeOrmModule.forFeature([Todo])], providers: [TodoList, CompleteTodoHandler] })
class TodoModule {}

/** Columns of `schema`.actions, in order. */
async function columnsOf(sql: Client, schema: string): Promise<string[]> {
  const { rows } = await sql.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'actions' ORDER BY ordinal_position`,
    [schema],
  );
  return rows.map((r) => r.column_name);
}

/**
 * Embedded in an app whose database already has a table
 * named `actions` in public (with other columns), the queue keeps to its own
 * schema, `action_queue`, and both work. Seen failing before the default
 * schema changed: the queue's migration 001 stopped on the app's table
 * (`relation "actions" already exists`).
 */
describe('the queue embedded in an app that has its own actions table', () => {
  let db: TestDatabase;
  let sql: Client;
  let app: INestApplication;
  let logger: CapturingLogger;

  beforeAll(async () => {
    db = await createEmptyTestDatabase('ownschema');
    // An app's database as it is, not as the test support makes it: the default search_path ("$user", public).
    const admin = await connect(TEST_SERVER_URL);
    await admin.query(`ALTER DATABASE ${db.name} RESET search_path`);
    await admin.end();
    sql = await connect(db.url);
    await sql.query(`CREATE TABLE actions (id serial PRIMARY KEY, title text NOT NULL, done boolean NOT NULL DEFAULT false)`);
    await sql.query(`INSERT INTO actions (title) VALUES ('write the report'), ('water the plants')`);

    @Module({
      imports: [
        TypeOrmModule.forRoot({ type: 'postgres', url: db.url, entities: [Todo] }),
        ActionQueueModule.forRoot({ database: { url: db.url }, worker: { pollIntervalMs: 100, concurrency: 2 } }),
        TodoModule,
      ],
    })
    class HostAppModule {}
    logger = new CapturingLogger();
    app = await NestFactory.create(HostAppModule, { logger, abortOnError: false });
    await app.init();
  });
  afterAll(async () => {
    await app?.close();
    await sql?.end();
    await db?.drop();
  });

  it('puts its tables in action_queue and says why, leaving the app’s actions table as it was', async () => {
    expect(logger.lines).toContain(
      `The queue's schema is "action_queue": DATABASE_SCHEMA is not set and no queue is installed in public: the default for a new install`,
    );
    expect(await columnsOf(sql, 'public')).toEqual(['id', 'title', 'done']);
    expect(await columnsOf(sql, 'action_queue')).toEqual(expect.arrayContaining(['id', 'lock_id', 'type', 'payload', 'status']));
    const { rows } = await sql.query(
      `SELECT to_regclass('public.typeorm_migrations') AS public_migrations, to_regclass('action_queue.typeorm_migrations') IS NOT NULL AS own`,
    );
    expect(rows).toEqual([{ public_migrations: null, own: true }]);
  });

  it('runs the queue’s action, whose handler writes the app’s own actions table; the app’s other rows are untouched', async () => {
    const queue = app.get(ActionQueue);
    const { action } = await queue.enqueue({ type: 'todo.complete', lockId: 1, payload: { todoId: 1 } });
    const done = await waitFor(async () => {
      const a = await queue.get(action.id);
      return a.status === 'done' ? a : null;
    }, 15_000);
    expect(done.result).toEqual({ completed: 1 });
    const { rows: todos } = await sql.query(`SELECT id, title, done FROM public.actions ORDER BY id`);
    expect(todos).toEqual([
      { id: 1, title: 'write the report', done: true },
      { id: 2, title: 'water the plants', done: false },
    ]);
    const { rows: queued } = await sql.query(`SELECT type, status FROM action_queue.actions`);
    expect(queued).toEqual([{ type: 'todo.complete', status: 'done' }]);
    // The app's own repository still reads and writes its table.
    await app.get(DataSource).getRepository(Todo).insert({ title: 'call the bank' });
    expect((await sql.query(`SELECT count(*)::int AS n FROM public.actions`)).rows[0].n).toBe(3);
  });

  it('on the app’s DataSource, whose search_path does not reach action_queue, stops start-up saying how to fix it', async () => {
    @Module({
      imports: [
        TypeOrmModule.forRoot({ type: 'postgres', url: db.url, entities: [Todo] }),
        ActionQueueModule.forRootAsync({
          inject: [DataSource],
          useFactory: (dataSource: DataSource) => ({ database: { dataSource }, worker: { enabled: false } }),
        }),
      ],
    })
    class SharedDataSourceModule {}
    const shared = await NestFactory.create(SharedDataSourceModule, { logger: false, abortOnError: false });
    try {
      const started = shared.init();
      await expect(started).rejects.toThrow(/in schema "action_queue", but your DataSource's search_path is ""\$user", public"/);
      await expect(started).rejects.toThrow(`extra: { options: '-c search_path=public,action_queue' }`);
    } finally {
      await shared.close();
    }
  });
});

describe('the queue’s schema on start-up without DATABASE_SCHEMA', () => {
  const fresh = withTestDatabase('schemafresh', { migrated: false });
  const from03 = withTestDatabase('schemafrom03', { migrated: false });

  it('a new install: action_queue, nothing of the queue in public', async () => {
    const { app } = await startTestApp(fresh.url);
    try {
      const c = await fresh.connect();
      const { rows } = await c.query(`SELECT to_regclass('action_queue.actions') IS NOT NULL AS own, to_regclass('public.actions') AS public_actions`);
      expect(rows).toEqual([{ own: true, public_actions: null }]);
    } finally {
      await app.close();
    }
  });

  it('an install of 0.3 (its migrations table in public) keeps public, and is upgraded there', async () => {
    await migratedUpTo(from03.url, 'FinishWithoutGuard1764460800046');
    const { app } = await startTestApp(from03.url);
    try {
      const c = await from03.connect();
      const migrations = (await c.query<{ name: string }>('SELECT name FROM public.typeorm_migrations ORDER BY id')).rows.map((r) => r.name);
      expect(migrations).toEqual(MIGRATIONS.map((m) => m.name));
      expect((await c.query(`SELECT to_regnamespace('action_queue') AS created`)).rows).toEqual([{ created: null }]);
    } finally {
      await app.close();
    }
  });
});
