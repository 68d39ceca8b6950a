import { ProxyTracerProvider, trace } from '@opentelemetry/api';

/**
 * The API's no-op tracer provider: what a fresh proxy delegates to before an
 * SDK is registered (`getDelegate()` returns the API's one shared instance).
 */
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();

/**
 * Whether an OpenTelemetry SDK (a tracer provider) is registered with the
 * global API. Checked per statement, an identity comparison: the worker then
 * reads each leased action's stored trace context only when a span can use
 * it, so without an SDK tracing costs no database work (bench/tracing-cost.ts).
 */
export function tracingEnabled(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NOOP_PROVIDER;
}
