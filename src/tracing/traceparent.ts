import { context as otelContext, Context, isSpanContextValid, ROOT_CONTEXT, SpanContext, trace, TraceFlags } from '@opentelemetry/api';

/**
 * The W3C Trace Context `traceparent` value of version 00: version, trace id
 * (32 lowercase hex), parent id (16), flags (2), dash-separated
 * (https://www.w3.org/TR/trace-context/#traceparent-header). The same
 * pattern is the CHECK constraint of `actions.traceparent`
 * (src/database/sql/049-trace-context.up.sql).
 */
export const TRACEPARENT_PATTERN = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * The span context a `traceparent` value names, marked remote (it was made
 * in another process or at another time), or null when the value is not a
 * valid version-00 traceparent (an all-zero id is invalid). A caller ignores
 * an invalid value, as the W3C recommendation says a receiver does.
 *
 * @param value the header or column value (may be null or undefined).
 */
export function parseTraceparent(value: string | null | undefined): SpanContext | null {
  const match = value ? TRACEPARENT_PATTERN.exec(value) : null;
  if (!match) return null;
  const spanContext: SpanContext = { traceId: match[1], spanId: match[2], traceFlags: parseInt(match[3], 16) & TraceFlags.SAMPLED, isRemote: true };
  return isSpanContextValid(spanContext) ? spanContext : null;
}

/** `spanContext` as a version-00 `traceparent` value. */
export function formatTraceparent(spanContext: SpanContext): string {
  return `00-${spanContext.traceId}-${spanContext.spanId}-${(spanContext.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/**
 * The trace context to store with an action being enqueued: the active
 * span's (an app's HTTP instrumentation or its own span around the enqueue),
 * else the request's `traceparent` header when it is valid, else null. With
 * no OpenTelemetry SDK registered there is no active span, and only a header
 * is kept.
 *
 * @param header the incoming `traceparent` header, if any.
 * @returns a version-00 traceparent value, or null.
 */
export function traceparentToStore(header?: string | null): string | null {
  const active = trace.getSpanContext(otelContext.active());
  if (active && isSpanContextValid(active)) return formatTraceparent(active);
  const fromHeader = parseTraceparent(header?.trim());
  return fromHeader ? formatTraceparent(fromHeader) : null;
}

/** The context whose parent is the stored `traceparent` (a new trace when null or invalid). */
export function contextFromTraceparent(value: string | null | undefined): Context {
  const spanContext = parseTraceparent(value);
  return spanContext ? trace.setSpanContext(ROOT_CONTEXT, spanContext) : ROOT_CONTEXT;
}
