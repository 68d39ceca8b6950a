import { Injectable, Module } from '@nestjs/common';
import request from 'supertest';
import { ActionContext, ActionHandler, ActionHandlerHost, PermanentFailureError, QueuedAction } from '../../src';
import { createApp } from '../../src/service/bootstrap';
import { loadSettings } from '../../src/config/settings';
import { startTestApp, waitFor, withTestDatabase } from '../support';

const seen: { id: string; attempt: number; workerId: string; aborted: boolean }[] = [];

@ActionHandler({ type: 'invoice.send', backoffBaseMs: 10, backoffCapMs: 20 })
class SendInvoiceHandler extends ActionHandlerHost {
  async handle(action: QueuedAction, ctx: ActionContext) {
    seen.push({ id: action.id, attempt: ctx.attempt, workerId: ctx.workerId, aborted: ctx.signal.aborted });
    if (action.payload.permanent) throw new PermanentFailureError('invoice is void');
    if (ctx.attempt < Number(action.payload.failUntil ?? 0)) throw new Error(`transient ${ctx.attempt}`);
    return { sent: action.payload.invoiceId, attempt: ctx.attempt };
  }
}

/** Returns results that jsonb cannot store as they are. */
@ActionHandler('result.odd')
class OddResultHandler extends ActionHandlerHost {
  async handle(action: QueuedAction) {
    switch (action.payload.mode) {
      case 'surrogate':
        return { text: 'x\ud800y' };
      case 'nul':
        return { text: 'a\u0000b', literal: '\\u0000 stays' };
      default:
        return { ok: true };
    }
  }
}

@Module({ providers: [SendInvoiceHandler, OddResultHandler] })
class BillingHandlersModule {}

@ActionHandler('instance.create')
class SecondCreateHandler extends ActionHandlerHost {
  async handle() {
    return null;
  }
}
@Module({ providers: [SecondCreateHandler] })
class DuplicateModule {}

@ActionHandler('not.a.host')
@Injectable()
class NotAHost {
  async handle() {
    return null;
  }
}
@Module({ providers: [NotAHost] })
class InvalidModule {}

describe('handlers registered by users', () => {
  const db = withTestDatabase('handlers');

  it('discovers a user handler module, passes the context, stores the result, retries then fails permanently', async () => {
    const { app, url } = await startTestApp(db.url, {}, [BillingHandlersModule]);
    try {
      const ok = await request(url)
        .post('/actions')
        .send({ type: 'invoice.send', lockId: 5, payload: { invoiceId: 'A-1', failUntil: 3 } })
        .expect(201);
      const bad = await request(url)
        .post('/actions')
        .send({ type: 'invoice.send', lockId: 6, payload: { permanent: true } })
        .expect(201);
      const done = await waitFor(async () => {
        const r = await request(url).get(`/actions/${ok.body.id}`);
        return r.body.status === 'done' ? r.body : null;
      });
      expect(done.result).toEqual({ sent: 'A-1', attempt: 3 });
      expect(done.trace.map((t: { outcome: string }) => t.outcome)).toEqual(['error', 'error', 'done']);
      expect(done.trace[0].error).toContain('transient 1');
      const failed = await waitFor(async () => {
        const r = await request(url).get(`/actions/${bad.body.id}`);
        return r.body.status === 'failed' ? r.body : null;
      });
      expect(failed.attempts).toBe(1);
      expect(failed.lastError).toContain('invoice is void');
      const mine = seen.filter((s) => s.id === ok.body.id);
      expect(mine.map((s) => s.attempt)).toEqual([1, 2, 3]);
      expect(mine.every((s) => s.workerId.length > 0 && !s.aborted)).toBe(true);
    } finally {
      await app.close();
    }
  });

  it('stores odd handler results safely: NUL dropped, an unpaired surrogate fails only its own action', async () => {
    const { app, url } = await startTestApp(db.url, { WORKER_CONCURRENCY: '8' }, [BillingHandlersModule]);
    try {
      const { body } = await request(url)
        .post('/actions/batch')
        .send({ actions: ['surrogate', 'nul', 'plain'].map((mode, i) => ({ type: 'result.odd', lockId: 700 + i, payload: { mode } })) })
        .expect(201);
      const [surrogate, nul, plain] = await Promise.all(
        body.actions.map((a: { id: string }) =>
          waitFor(async () => {
            const r = await request(url).get(`/actions/${a.id}`);
            return ['done', 'failed'].includes(r.body.status) ? r.body : null;
          }),
        ),
      );
      expect(surrogate.status).toBe('failed');
      expect(surrogate.attempts).toBe(1);
      expect(surrogate.lastError).toContain('unpaired UTF-16 surrogate');
      expect(nul.status).toBe('done');
      expect(nul.result).toEqual({ text: 'ab', literal: '\\u0000 stays' });
      expect(plain.status).toBe('done');
      expect(plain.result).toEqual({ ok: true });
    } finally {
      await app.close();
    }
  });

  it('stops start-up when two handlers claim one type, naming both', async () => {
    const settings = loadSettings({ LOG_LEVEL: 'silent' });
    const app = await createApp({ databaseUrl: db.url, settings, imports: [DuplicateModule] });
    // Discovery runs in onModuleInit, i.e. during init, before anything is claimed.
    await expect(app.init()).rejects.toThrow(
      /Two handlers for action type "instance\.create": (CreateInstanceHandler and SecondCreateHandler|SecondCreateHandler and CreateInstanceHandler)/,
    );
    await app.close().catch(() => undefined);
  });

  it('stops start-up when a handler does not extend ActionHandlerHost', async () => {
    const settings = loadSettings({ LOG_LEVEL: 'silent' });
    const app = await createApp({ databaseUrl: db.url, settings, imports: [InvalidModule] });
    await expect(app.init()).rejects.toThrow(/NotAHost: it must extend ActionHandlerHost/);
    await app.close().catch(() => undefined);
  });
});
