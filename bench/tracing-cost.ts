/**
 * What tracing costs the worker per attempt when no OpenTelemetry SDK is
 * registered: the span calls the worker makes for one attempt (start the
 * attempt's span, run the handler in its context, the finish span, end it),
 * against the same work without them (and the claim's and finish's check that picks
 * the statement without `traceparent`), in one process, interleaved A B A B (this
 * machine's speed drifts). Then the same with the SDK registered and
 * sampling nothing, for scale. Prints ns per attempt and the difference.
 *
 *   npx ts-node bench/tracing-cost.ts      (or node dist/bench/tracing-cost.js after a build)
 */
import { context, trace } from '@opentelemetry/api';
import { AlwaysOffSampler } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { QueueSpans } from '../src/tracing/queue-spans';

const ATTEMPTS = 200_000;
const ROUNDS = 6;
const row = { id: '123', lock_id: '7', type: 'invoice.send', attempts: 1, traceparent: null };

/** A stand-in for the handler and the finishing statement: an awaited promise each, as in the worker. */
const handler = async () => 1;
const finish = async () => ({ recorded: true });

async function plain(): Promise<void> {
  for (let i = 0; i < ATTEMPTS; i++) {
    await handler();
    await finish();
  }
}

async function traced(spans: QueueSpans): Promise<void> {
  for (let i = 0; i < ATTEMPTS; i++) {
    const t = spans.startAttempt([row]);
    if (t) throw new Error('an SDK is registered');
    await spans.within(t, handler);
    await spans.traceFinish(t, finish);
    spans.endAttempt(t, 'done');
  }
}

async function tracedWithSdk(spans: QueueSpans): Promise<void> {
  for (let i = 0; i < ATTEMPTS; i++) {
    const t = spans.startAttempt([row]);
    await spans.within(t, handler);
    await spans.traceFinish(t, finish);
    spans.endAttempt(t, 'done');
  }
}

async function nsPerAttempt(run: () => Promise<void>): Promise<number> {
  const start = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - start) / ATTEMPTS;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const spans = new QueueSpans();
  await plain();
  await traced(spans); // warm up both
  const a: number[] = [];
  const b: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    a.push(await nsPerAttempt(plain));
    b.push(await nsPerAttempt(() => traced(spans)));
  }
  console.log(`no SDK, ${ROUNDS} rounds of ${ATTEMPTS} attempts, A B A B:`);
  console.log(`  without span calls: ${a.map((x) => x.toFixed(0)).join(', ')} ns/attempt (median ${median(a).toFixed(0)})`);
  console.log(`  with span calls:    ${b.map((x) => x.toFixed(0)).join(', ')} ns/attempt (median ${median(b).toFixed(0)})`);
  console.log(`  difference: ${(median(b) - median(a)).toFixed(0)} ns per attempt (no database work: the traced statements are not used)`);

  const provider = new NodeTracerProvider({ sampler: new AlwaysOffSampler() });
  provider.register();
  const withSdk = new QueueSpans();
  const c: number[] = [];
  for (let round = 0; round < ROUNDS; round++) c.push(await nsPerAttempt(() => tracedWithSdk(withSdk)));
  console.log(
    `SDK registered, sampling nothing: ${c.map((x) => x.toFixed(0)).join(', ')} ns/attempt (median ${median(c).toFixed(0)}; plus the traced statements' one index read per leased action)`,
  );
  await provider.shutdown();
  trace.disable();
  context.disable();
}

void main();
