import { INestApplication, Module } from '@nestjs/common';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { Client } from 'pg';
import request from 'supertest';
import { ActionQueue } from '../../src';
import { ActionContext, ActionHandler, ActionHandlerHost, QueuedAction } from '../../src/handlers';
import { startTestApp, waitFor, withTestDatabase } from '../support';

/** Span ids seen by the handler as the active span, by action id and attempt. */
const activeSpanIds = new Map<string, string | undefined>();

/** Fails its first `failAttempts` attempts; records the span it runs in. */
@ActionHandler({ type: 'traced.flaky', maxAttempts: 3, backoffBaseMs: 10, backoffCapMs: 20 })
class TracedFlakyHandler extends ActionHandlerHost {
  async handle(action: QueuedAction, ctx: ActionContext) {
    activeSpanIds.set(`${action.id}/${ctx.attempt}`, trace.getActiveSpan()?.spanContext().spanId);
    if (typeof action.payload.failAttempts === 'number' && ctx.attempt <= action.payload.failAttempts) throw new Error(`failing attempt ${ctx.attempt}`);
    return { attempt: ctx.attempt };
  }
}

@Module({ providers: [TracedFlakyHandler] })
class TracedHandlersModule {}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN_ID = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_SPAN_ID}-01`;

/**
 * OpenTelemetry with the SDK's in-memory exporter registered (what an app
 * does with its SDK): the REST enqueue's `traceparent` is stored with the
 * action, each attempt runs in a CONSUMER span of that trace with its
 * attributes, a retry is a span per attempt, and claims and finishes get
 * CLIENT spans.
 */
describe('OpenTelemetry traces of enqueue, claim, attempts and finish', () => {
  const db = withTestDatabase('tracing');
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let c: Client;
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    provider.register();
    c = await db.connect();
    ({ app, url } = await startTestApp(db.url, { DEMO_HANDLERS: 'false', WORKER_POLL_INTERVAL_MS: '50' }, [TracedHandlersModule]));
  });
  afterAll(async () => {
    await app?.close();
    await provider.shutdown();
    trace.disable();
    context.disable();
  });

  const attemptSpans = (id: string): ReadableSpan[] =>
    exporter
      .getFinishedSpans()
      .filter((s) => s.kind === SpanKind.CONSUMER && s.attributes['action_queue.action.id'] === id)
      .sort((a, b) => Number(a.attributes['action_queue.attempt']) - Number(b.attributes['action_queue.attempt']));

  it("joins the caller's trace from its traceparent header: one CONSUMER span per attempt, the handler running inside it", async () => {
    const created = await request(url)
      .post('/actions')
      .set('traceparent', TRACEPARENT)
      .send({ type: 'traced.flaky', lockId: '7', payload: { failAttempts: 1 } })
      .expect(201);
    const id = created.body.id as string;
    expect((await c.query(`SELECT traceparent FROM actions WHERE id = $1`, [id])).rows[0].traceparent).toBe(TRACEPARENT);

    await waitFor(async () => attemptSpans(id).length === 2, 10_000);
    const [first, second] = attemptSpans(id);
    for (const span of [first, second]) {
      expect(span.name).toBe('traced.flaky');
      expect(span.spanContext().traceId).toBe(TRACE_ID);
      expect(span.parentSpanContext?.spanId).toBe(PARENT_SPAN_ID);
      expect(span.attributes).toMatchObject({ 'action_queue.action.id': id, 'action_queue.lock_id': '7', 'messaging.system': 'ordered_action_queue' });
    }
    expect(first.attributes).toMatchObject({ 'action_queue.attempt': 1, 'action_queue.outcome': 'error' });
    expect(first.status).toMatchObject({ code: 2, message: expect.stringContaining('failing attempt 1') });
    expect(second.attributes).toMatchObject({ 'action_queue.attempt': 2, 'action_queue.outcome': 'done' });
    expect(second.status.code).not.toBe(2);
    expect(activeSpanIds.get(`${id}/1`)).toBe(first.spanContext().spanId);
    expect(activeSpanIds.get(`${id}/2`)).toBe(second.spanContext().spanId);

    // Each attempt's finishing statement is a CLIENT span under it.
    const finishes = exporter.getFinishedSpans().filter((s) => s.name === 'action_queue finish');
    for (const span of [first, second]) {
      expect(finishes.some((f) => f.parentSpanContext?.spanId === span.spanContext().spanId && f.kind === SpanKind.CLIENT)).toBe(true);
    }
    // A claim that leased it is a CLIENT span linked to the enqueue's context.
    const claims = exporter.getFinishedSpans().filter((s) => s.name === 'action_queue claim');
    expect(claims.some((s) => s.kind === SpanKind.CLIENT && s.links.some((l) => l.context.traceId === TRACE_ID && l.context.spanId === PARENT_SPAN_ID))).toBe(
      true,
    );
  });

  it('starts a trace of its own for an action enqueued without trace context, and ignores an invalid traceparent', async () => {
    const bad = await request(url)
      .post('/actions')
      .set('traceparent', `00-${'0'.repeat(32)}-${PARENT_SPAN_ID}-01`)
      .send({ type: 'traced.flaky', lockId: '8', payload: {} })
      .expect(201);
    const id = bad.body.id as string;
    expect((await c.query(`SELECT traceparent FROM actions WHERE id = $1`, [id])).rows[0].traceparent).toBeNull();
    await waitFor(async () => attemptSpans(id).length === 1, 10_000);
    const [span] = attemptSpans(id);
    expect(span.spanContext().traceId).not.toBe('0'.repeat(32));
    expect(span.parentSpanContext).toBeUndefined();
  });

  it('stores the active span of an in-process enqueue, and refuses a malformed traceparent from a SQL producer', async () => {
    // The package's enqueue inside an app's span (a controller of the app, a job of its own).
    const queue = app.get(ActionQueue);
    const tracer = trace.getTracer('app');
    const { id: appSpanId, result } = await tracer.startActiveSpan('app job', async (span) => {
      try {
        return { id: span.spanContext(), result: await queue.enqueue({ type: 'traced.flaky', lockId: '9', payload: {} }) };
      } finally {
        span.end();
      }
    });
    const stored = (await c.query(`SELECT traceparent FROM actions WHERE id = $1`, [result.action.id])).rows[0].traceparent;
    expect(stored).toBe(`00-${appSpanId.traceId}-${appSpanId.spanId}-01`);
    await waitFor(async () => attemptSpans(result.action.id).length === 1, 10_000);
    expect(attemptSpans(result.action.id)[0].parentSpanContext?.spanId).toBe(appSpanId.spanId);

    await expect(
      c.query(`INSERT INTO actions (lock_id, type, payload, traceparent) VALUES (10, 'traced.flaky', '{}', 'not-a-traceparent')`),
    ).rejects.toMatchObject({
      code: '23514',
      constraint: 'actions_traceparent_format',
    });
    const good = `00-${TRACE_ID}-${'1'.repeat(16)}-00`;
    const {
      rows: [{ id }],
    } = await c.query<{ id: string }>(`INSERT INTO actions (lock_id, type, payload, traceparent) VALUES (10, 'traced.flaky', '{}', $1) RETURNING id::text`, [
      good,
    ]);
    await waitFor(async () => (await c.query(`SELECT status FROM actions WHERE id = $1`, [id])).rows[0].status === 'done', 10_000);
    // Flags 00: the caller did not sample it, and the SDK's default (parent-based) sampler follows the parent: no span.
    expect(attemptSpans(id)).toEqual([]);
  });
});
