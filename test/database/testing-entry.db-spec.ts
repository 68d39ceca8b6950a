import { Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { ActionContext, ActionHandler, ActionHandlerHost, ActionQueue, ActionQueueModule, QueuedAction } from '../../src';
import { checkTrace, createTestDatabase, formatTraceReport, TestDatabase, waitForActions } from '../../src/testing';
import { sleep, TEST_SERVER_URL } from '../support';

const sent: string[] = [];

/** A user's handler, as a user would test it. */
@ActionHandler({ type: 'invoice.send', backoffBaseMs: 1, backoffCapMs: 5 })
class SendInvoiceHandler extends ActionHandlerHost {
  async handle(action: QueuedAction, ctx: ActionContext) {
    if (ctx.attempt === 1 && action.payload.flaky) throw new Error('billing is down');
    await sleep(10);
    sent.push(String(action.payload.invoiceId));
    return { sent: action.payload.invoiceId };
  }
}

@Module({ providers: [SendInvoiceHandler] })
class BillingHandlersModule {}

/** docs/using-the-package.md, "Testing your handlers", with the public entries only. */
describe('ordered-action-queue/testing, used as docs/using-the-package.md shows', () => {
  let db: TestDatabase;

  beforeAll(async () => (db = await createTestDatabase(TEST_SERVER_URL, 'testing_entry')));
  afterAll(async () => db?.drop());

  it("runs a user's handler through the real worker and checks the group's order from the trace", async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [ActionQueueModule.forRoot({ database: { url: db.url }, worker: { pollIntervalMs: 100 } }), BillingHandlersModule],
    }).compile();
    await moduleRef.init();
    try {
      const actions = moduleRef.get(ActionQueue);
      const results = await actions.enqueueBatch([
        { type: 'invoice.send', lockId: 1, payload: { invoiceId: 'a', flaky: true } },
        { type: 'invoice.send', lockId: 1, payload: { invoiceId: 'b' } },
        { type: 'invoice.send', lockId: 1, payload: { invoiceId: 'c' } },
      ]);
      const finished = await waitForActions(
        actions,
        results.map((r) => r.action.id),
      );
      expect(finished.map((a) => [a.status, a.attempts])).toEqual([
        ['done', 2],
        ['done', 1],
        ['done', 1],
      ]);
      // The failed first attempt kept its place at the head of the group.
      expect(sent).toEqual(['a', 'b', 'c']);
      const report = await checkTrace(db.url, { lockIds: ['1'] });
      expect(report.ok ? 'ok' : formatTraceReport(report)).toBe('ok');
      expect(report.attemptsByOutcome).toEqual({ error: 1, done: 3 });
    } finally {
      await moduleRef.close();
    }
  });

  it('waitForActions names the actions still unfinished when its time is up', async () => {
    const reader = { get: async (id: string) => ({ id, status: 'pending' }) };
    await expect(waitForActions(reader, ['7'], { timeoutMs: 50 })).rejects.toThrow('actions not finished within 50 ms: 7 (pending)');
  });
});
