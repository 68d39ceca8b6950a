import { context as otelContext, Context, Link, Span, SpanKind, SpanStatusCode, trace, Tracer } from '@opentelemetry/api';
import { RELEASE_VERSION } from '../release/release-version';
import { contextFromTraceparent, parseTraceparent } from './traceparent';
import { tracingEnabled } from './tracing-enabled';

/** The instrumentation scope of every span the queue makes (the package's name and version). */
export const TRACER_NAME = 'ordered-action-queue';

/** Attribute names of the queue's spans: OpenTelemetry's messaging conventions where one fits, `action_queue.*` otherwise. */
export const SPAN_ATTRIBUTES = {
  system: 'messaging.system',
  operation: 'messaging.operation.type',
  messageId: 'messaging.message.id',
  batchCount: 'messaging.batch.message_count',
  actionId: 'action_queue.action.id',
  type: 'action_queue.action.type',
  lockId: 'action_queue.lock_id',
  attempt: 'action_queue.attempt',
  outcome: 'action_queue.outcome',
  chunkSize: 'action_queue.chunk.size',
} as const;

/** `messaging.system` of every span (no registered value exists for this queue). */
const SYSTEM = 'ordered_action_queue';

/** An attempt's span and the context its handler runs in. */
export interface AttemptTrace {
  span: Span;
  context: Context;
}

/** What a span needs of a leased action. */
export interface TracedAction {
  id: string;
  lock_id: string | null;
  type: string;
  attempts: number;
  traceparent?: string | null;
}

/**
 * The queue's spans, through `@opentelemetry/api` only: the app registers an
 * SDK (or none). With none, the attempt's calls here are one identity check
 * each and make nothing (tracingEnabled; bench/tracing-cost.ts measures
 * them against plain calls).
 *
 * - an attempt: a CONSUMER span named after the action's type, whose parent
 *   is the trace context stored at enqueue (`actions.traceparent`), so it
 *   joins the enqueuer's trace; the handler runs inside it (its own spans are
 *   children). One span per attempt: a retry is a new span of the same trace.
 *   A chunk is one span (its head's context as parent, links to the others').
 * - a claim that leased actions: a CLIENT span `action_queue claim`, linked
 *   to each action's enqueue context (made after the fact, so an empty poll
 *   makes no span).
 * - the finishing statement of an attempt: a CLIENT span `action_queue
 *   finish`, a child of the attempt's span.
 */
export class QueueSpans {
  private readonly tracer: Tracer = trace.getTracer(TRACER_NAME, RELEASE_VERSION);

  /**
   * Starts the span of one attempt (of a chunk when `rows` has more than one).
   * @param rows the leased action, or the chunk with its head first.
   * @returns the span and the context to run the handler in; null when no SDK is registered.
   */
  startAttempt(rows: readonly TracedAction[]): AttemptTrace | null {
    if (!tracingEnabled()) return null;
    const head = rows[0];
    const parent = contextFromTraceparent(head.traceparent);
    const links = rows.length > 1 ? linksOf(rows.slice(1)) : undefined;
    const span = this.tracer.startSpan(
      head.type,
      {
        kind: SpanKind.CONSUMER,
        links,
        attributes: {
          [SPAN_ATTRIBUTES.system]: SYSTEM,
          [SPAN_ATTRIBUTES.operation]: 'process',
          [SPAN_ATTRIBUTES.messageId]: head.id,
          [SPAN_ATTRIBUTES.actionId]: head.id,
          [SPAN_ATTRIBUTES.type]: head.type,
          [SPAN_ATTRIBUTES.lockId]: head.lock_id ?? undefined,
          [SPAN_ATTRIBUTES.attempt]: head.attempts,
          [SPAN_ATTRIBUTES.chunkSize]: rows.length > 1 ? rows.length : undefined,
        },
      },
      parent,
    );
    return { span, context: trace.setSpan(parent, span) };
  }

  /** Runs `fn` (the attempt's handler) inside the attempt's span, or just runs it without one. */
  within<T>(traced: AttemptTrace | null, fn: () => T): T {
    return traced ? otelContext.with(traced.context, fn) : fn();
  }

  /**
   * Ends an attempt's span with how it ended (nothing without one).
   * @param outcome the trace row's outcome (`done`, `error`, `timeout`, ...), or `lost` when nothing was recorded.
   * @param error the message of a failed attempt, set as the span's error status.
   */
  endAttempt(traced: AttemptTrace | null, outcome: string, error?: string): void {
    if (!traced) return;
    const span = traced.span;
    span.setAttribute(SPAN_ATTRIBUTES.outcome, outcome);
    if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
    span.end();
  }

  /**
   * Records a claim that leased `rows` as a CLIENT span from `startTime` to now.
   * @param startTime when the claim was sent (epoch ms).
   */
  recordClaim(rows: readonly TracedAction[], startTime: number): void {
    if (rows.length === 0) return;
    const span = this.tracer.startSpan(
      'action_queue claim',
      {
        kind: SpanKind.CLIENT,
        startTime,
        links: linksOf(rows),
        attributes: { [SPAN_ATTRIBUTES.system]: SYSTEM, [SPAN_ATTRIBUTES.operation]: 'receive', [SPAN_ATTRIBUTES.batchCount]: rows.length },
      },
      otelContext.active(),
    );
    span.end();
  }

  /**
   * Runs an attempt's finishing statement inside a CLIENT span `action_queue finish`, a child of the attempt's span (no span without one).
   * @returns what `finish` returns (its rejection rejects, the span ends with an error status).
   */
  traceFinish<T>(traced: AttemptTrace | null, finish: () => Promise<T>): Promise<T> {
    return traced ? this.finishInSpan(traced, finish) : finish();
  }

  private async finishInSpan<T>(traced: AttemptTrace, finish: () => Promise<T>): Promise<T> {
    const span = this.tracer.startSpan(
      'action_queue finish',
      { kind: SpanKind.CLIENT, attributes: { [SPAN_ATTRIBUTES.system]: SYSTEM, [SPAN_ATTRIBUTES.operation]: 'settle' } },
      traced.context,
    );
    try {
      return await finish();
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  }
}

/** Links to the enqueue contexts of `rows` that stored one. */
function linksOf(rows: readonly TracedAction[]): Link[] {
  const links: Link[] = [];
  for (const row of rows) {
    const spanContext = parseTraceparent(row.traceparent);
    if (spanContext) links.push({ context: spanContext });
  }
  return links;
}
