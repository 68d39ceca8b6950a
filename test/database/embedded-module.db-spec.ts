import { Body, Controller, Injectable, INestApplication, Module, Post, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Interval, ScheduleModule, SchedulerRegistry } from '@nestjs/schedule';
import { InjectDataSource, TypeOrmModule } from '@nestjs/typeorm';
import { IsInt } from 'class-validator';
import { Client } from 'pg';
import request from 'supertest';
import { Column, DataSource, Entity, PrimaryColumn } from 'typeorm';
import { ActionContext, ActionHandler, ActionHandlerHost, ActionQueueModule, ActionQueueModuleRootOptions, ActionQueue, QueuedAction } from '../../src';
import { SETTINGS } from '../../src/config/settings.token';
import { SCHEDULE_TICKER_POLL } from '../../src/schedules/schedule-ticker.service';
import { QUEUE_DATA_SOURCE } from '../../src/database/queue-data-source.token';
import { databaseUrlOf } from '../../src/database/queue-database';
import { CapturingLogger, connect, createEmptyTestDatabase, TestDatabase, waitFor } from '../support';

/** The host app's own entity. */
@Entity('invoices')
class Invoice {
  @PrimaryColumn('int')
  id: number;

  @Column('text')
  status: string;
}

/** A provider of the host, injected into its handler. */
@Injectable()
class InvoiceBook {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  markSent(id: number, attempt: number): Promise<unknown> {
    return this.dataSource.getRepository(Invoice).update({ id }, { status: `sent (attempt ${attempt})` });
  }
}

/** The host's handler, in the host's own feature module. */
@ActionHandler({ type: 'invoice.send', backoffBaseMs: 10, backoffCapMs: 20 })
class SendInvoiceHandler extends ActionHandlerHost {
  constructor(private readonly book: InvoiceBook) {
    super();
  }

  async handle(action: QueuedAction, ctx: ActionContext) {
    await this.book.markSent(Number(action.payload.invoiceId), ctx.attempt);
    return { sent: action.payload.invoiceId };
  }
}

class EchoDto {
  @IsInt()
  n: number;
}

/** A route of the host: no global ValidationPipe may reject its body. */
@Controller('echo')
class EchoController {
  @Post()
  echo(@Body() body: EchoDto) {
    return body;
  }
}

@Module({
  imports: [TypeOrmModule.forFeature([Invoice])],
  providers: [InvoiceBook, SendInvoiceHandler],
  controllers: [EchoController],
})
class BillingModule {}

@ActionHandler('ping')
class PingHandler extends ActionHandlerHost {
  async handle() {
    return 'pong';
  }
}

@Module({ providers: [PingHandler] })
class PingModule {}

/** The host's own timer, on the host's own scheduler (ScheduleModule.forRoot() in the host). */
@Injectable()
class HostTimer {
  calls = 0;

  @Interval('host-timer', 100)
  tick() {
    this.calls++;
  }
}

describe('ActionQueueModule embedded in an existing Nest app', () => {
  let db: TestDatabase;
  let sql: Client;

  const actionCount = async () => (await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM actions')).rows[0].n;
  const invoiceStatus = async (id: number) => (await sql.query<{ status: string }>('SELECT status FROM invoices WHERE id = $1', [id])).rows[0]?.status;

  beforeAll(async () => {
    db = await createEmptyTestDatabase('embedded');
    sql = await connect(db.url);
    // The host's own schema (its business, not the queue's).
    await sql.query('CREATE TABLE invoices (id int PRIMARY KEY, status text NOT NULL)');
  });
  afterAll(async () => {
    await sql?.end();
    await db?.drop();
  });

  describe('on the app DataSource, through forRootAsync', () => {
    let app: INestApplication;
    let url: string;
    let logger: CapturingLogger;
    let listenersBefore: number;

    beforeAll(async () => {
      listenersBefore = process.listenerCount('unhandledRejection') + process.listenerCount('uncaughtException');
      @Module({
        imports: [
          TypeOrmModule.forRoot({ type: 'postgres', url: db.url, entities: [Invoice] }),
          ActionQueueModule.forRootAsync({
            inject: [DataSource],
            useFactory: (dataSource: DataSource) => ({ database: { dataSource }, worker: { pollIntervalMs: 200, concurrency: 4 } }),
            routes: { prefix: 'queue', health: true, docs: true },
          }),
          BillingModule,
          ScheduleModule.forRoot(),
        ],
        providers: [HostTimer],
      })
      class HostAppModule {}
      logger = new CapturingLogger();
      app = await NestFactory.create(HostAppModule, { logger, abortOnError: false });
      await app.listen(0, '127.0.0.1');
      url = `http://127.0.0.1:${app.getHttpServer().address().port}`;
    });
    afterAll(async () => {
      await app?.close();
    });

    it("runs the host's own @Interval once, not once per scheduler (the queue adds none), and times its ticker on the host's registry", async () => {
      const timer = app.get(HostTimer);
      const registry = app.get(SchedulerRegistry);
      expect(registry.getIntervals()).toEqual(expect.arrayContaining(['host-timer', SCHEDULE_TICKER_POLL]));
      const [calls, since] = [timer.calls, Date.now()];
      await waitFor(() => Promise.resolve(timer.calls - calls >= 5), 5_000, 20);
      // Timers never fire early: a second scheduler would call it about twice per 100 ms.
      expect(timer.calls - calls).toBeLessThanOrEqual(Math.floor((Date.now() - since) / 100) + 2);
    });

    it("finds the host's handler in the host's module, with the host's providers injected, and logs through the host's logger", async () => {
      expect(logger.lines).toContain('Action handlers: invoice.send');
      await sql.query(`INSERT INTO invoices VALUES (1, 'new')`);
      const { action } = await app.get(ActionQueue).enqueue({ type: 'invoice.send', lockId: 1, payload: { invoiceId: 1 } });
      await waitFor(async () => (await invoiceStatus(1)) === 'sent (attempt 1)');
      const done = await waitFor(async () => {
        const a = await app.get(ActionQueue).get(action.id);
        return a.status === 'done' ? a : null;
      });
      expect(done.result).toEqual({ sent: 1 });
    });

    it("applies its migrations in its own table, leaving the host's migration table alone", async () => {
      const { rows } = await sql.query(`SELECT to_regclass('typeorm_migrations') IS NOT NULL AS queue, to_regclass('migrations') IS NOT NULL AS host`);
      expect(rows[0]).toEqual({ queue: true, host: false });
    });

    it("enqueues inside the host's EntityManager transaction: a rollback leaves neither the invoice nor the action", async () => {
      const before = await actionCount();
      const dataSource = app.get(DataSource);
      await expect(
        dataSource.transaction(async (manager) => {
          await manager.insert(Invoice, { id: 2, status: 'new' });
          await app.get(ActionQueue).enqueue({ type: 'invoice.send', lockId: 2, payload: { invoiceId: 2 } }, manager);
          throw new Error('business rule failed after the enqueue');
        }),
      ).rejects.toThrow('business rule failed');
      expect(await actionCount()).toBe(before);
      expect(await invoiceStatus(2)).toBeUndefined();
    });

    it("enqueues inside the host's EntityManager transaction: a commit runs the action", async () => {
      const dataSource = app.get(DataSource);
      const { action } = await dataSource.transaction(async (manager) => {
        await manager.insert(Invoice, { id: 3, status: 'new' });
        return app.get(ActionQueue).enqueue({ type: 'invoice.send', lockId: 3, payload: { invoiceId: 3 } }, manager);
      });
      await waitFor(async () => (await app.get(ActionQueue).get(action.id)).status === 'done');
      expect(await invoiceStatus(3)).toBe('sent (attempt 1)');
    });

    it("enqueues inside the host's QueryRunner transaction: rollback leaves nothing, commit runs it", async () => {
      const before = await actionCount();
      const runner = app.get(DataSource).createQueryRunner();
      await runner.connect();
      try {
        await runner.startTransaction();
        await runner.manager.insert(Invoice, { id: 4, status: 'new' });
        await app.get(ActionQueue).enqueueBatch([{ type: 'invoice.send', lockId: 4, payload: { invoiceId: 4 } }], runner);
        await runner.rollbackTransaction();
        expect(await actionCount()).toBe(before);

        await runner.startTransaction();
        await runner.manager.insert(Invoice, { id: 4, status: 'new' });
        const [{ action }] = await app.get(ActionQueue).enqueueBatch([{ type: 'invoice.send', lockId: 4, payload: { invoiceId: 4 } }], runner);
        // Not visible to others until the commit.
        expect((await sql.query('SELECT 1 FROM actions WHERE id = $1', [action.id])).rowCount).toBe(0);
        await runner.commitTransaction();
        await waitFor(async () => (await app.get(ActionQueue).get(action.id)).status === 'done');
      } finally {
        await runner.release();
      }
      expect(await invoiceStatus(4)).toBe('sent (attempt 1)');
    });

    it('serves its routes under the prefix only, with its own validation and JSON body checks', async () => {
      await request(url).get('/actions').expect(404);
      const bad = await request(url).post('/queue/actions').send({ type: 'invoice.send', lockId: 'x', extra: 1 }).expect(400);
      expect(JSON.stringify(bad.body.message)).toMatch(/lockId/);
      expect(JSON.stringify(bad.body.message)).toMatch(/property extra should not exist/);
      const notJson = await request(url).post('/queue/actions').set('content-type', 'text/plain').send('{"type":"invoice.send"}');
      // The host's JSON parser ignores text/plain; the queue's routes still refuse it.
      expect(notJson.status).toBe(415);
      const nul = await request(url)
        .post('/queue/actions')
        .send({ type: 'invoice.send', payload: { note: 'a\u0000b' } })
        .expect(400);
      expect(JSON.stringify(nul.body.message)).toMatch(/payload.note contains the NUL character/);
      const created = await request(url)
        .post('/queue/actions')
        .send({ type: 'invoice.send', payload: { invoiceId: 99 } })
        .expect(201);
      expect(created.body.id).toMatch(/^\d+$/);
      await request(url).get(`/queue/actions/${created.body.id}`).expect(200);
      await request(url).get('/queue/groups/1').expect(200);
      await request(url).get('/queue/stats').expect(200);
      await request(url).get('/queue/health').expect(200);
      await request(url).get('/queue/metrics').expect(404); // not asked for
    });

    it('serves the OpenAPI page of its own routes under the prefix when asked (routes.docs)', async () => {
      const document = (await request(url).get('/queue/docs-json').expect(200)).body as { paths: Record<string, unknown> };
      expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/queue/actions', '/queue/actions/{id}', '/queue/groups/{lockId}', '/queue/health']));
      // Only the queue's routes: not the host's own.
      expect(Object.keys(document.paths).filter((path) => !path.startsWith('/queue/'))).toEqual([]);
      const page = await request(url).get('/queue/docs').expect(200);
      expect(page.text).toContain('swagger-ui');
      await request(url).get('/docs-json').expect(404);
    });

    it("imposes nothing on the host: no global validation on the host's routes, no process-level handlers, no watchdog", async () => {
      // Without a global ValidationPipe the host's DTO is not validated (the host did not ask for it).
      const echoed = await request(url).post('/echo').send({ n: 'not a number', extra: true }).expect(201);
      expect(echoed.body).toEqual({ n: 'not a number', extra: true });
      expect(process.listenerCount('unhandledRejection') + process.listenerCount('uncaughtException')).toBe(listenersBefore);
      const settings = app.get(SETTINGS);
      expect(settings.STRAY_ERROR_POLICY).toBe('off');
      expect(settings.WATCHDOG_ENABLED).toBe(false);
    });
  });

  describe('with forRoot', () => {
    /** The host app, created but not initialised (so a test can see init fail and still close it). */
    const create = async (options: ActionQueueModuleRootOptions, imports: Type<unknown>[] = []) => {
      @Module({ imports: [ActionQueueModule.forRoot(options), ...imports] })
      class HostAppModule {}
      return NestFactory.create(HostAppModule, { logger: false, abortOnError: false });
    };

    it('never closes a DataSource that the app gave it', async () => {
      const dataSource = new DataSource({ type: 'postgres', url: db.url });
      const app = await create({ database: { dataSource }, worker: { enabled: false } });
      await app.init();
      expect(dataSource.isInitialized).toBe(true); // initialised by the module
      await app.close();
      expect(dataSource.isInitialized).toBe(true);
      await dataSource.destroy();
    });

    it('runs actions on a pool of its own for a URL, and closes it with the app', async () => {
      const app = await create({ database: { url: db.url, poolSize: 2 }, worker: { pollIntervalMs: 200 } }, [PingModule]);
      await app.init();
      const { action } = await app.get(ActionQueue).enqueue({ type: 'ping', lockId: '7' });
      await waitFor(async () => (await app.get(ActionQueue).get(action.id)).status === 'done');
      const own = app.get<DataSource>(QUEUE_DATA_SOURCE);
      await app.close();
      expect(own.isInitialized).toBe(false);
    });

    it('turns on the process guards only when asked', async () => {
      const before = process.listenerCount('unhandledRejection');
      const app = await create({ database: { url: db.url }, worker: { pollIntervalMs: 200 }, containment: { strayErrorPolicy: 'fail-attempt' } });
      await app.init();
      expect(process.listenerCount('unhandledRejection')).toBe(before + 1);
      await app.close();
      expect(process.listenerCount('unhandledRejection')).toBe(before);
    });

    it("builds the URL of its own connections from the app DataSource's options when they hold no url", () => {
      expect(databaseUrlOf({ type: 'postgres', host: 'db.internal', port: 5433, username: 'app', password: 'p@ss:/word', database: 'shop' })).toBe(
        'postgresql://app:p%40ss%3A%2Fword@db.internal:5433/shop',
      );
      expect(databaseUrlOf({ type: 'postgres', url: 'postgres://u@h/d' })).toBe('postgres://u@h/d');
      expect(databaseUrlOf({ type: 'postgres', username: 'app', ssl: true })).toBe('postgresql://app@localhost/app?sslmode=require');
    });

    it('stops start-up naming an invalid option', async () => {
      await expect(create({ database: { url: db.url }, worker: { concurrency: 0 } })).rejects.toThrow(
        /Invalid ActionQueueModule option worker\.concurrency \(WORKER_CONCURRENCY\)=0: WORKER_CONCURRENCY must be an integer from 1 to 1000/,
      );
    });

    it('with runMigrations: false, stops start-up naming the migrations a fresh database lacks', async () => {
      const fresh = await createEmptyTestDatabase('embedded_fresh');
      try {
        const app = await create({ database: { url: fresh.url }, runMigrations: false });
        await expect(app.init()).rejects.toThrow(/migrations CreateTables1764460800001, .* are not applied/);
        await app.close();
      } finally {
        await fresh.drop();
      }
    });
  });
});
