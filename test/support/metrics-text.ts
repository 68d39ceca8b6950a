/**
 * The value of one sample of a Prometheus text exposition (`GET /metrics`),
 * or undefined when the series is absent.
 *
 * @param text the exposition.
 * @param name metric name, e.g. `action_queue_fenced_completions_total`.
 * @param labels the sample's label set exactly as exposed, without braces (`status="pending"`); '' for none.
 */
export function metricSample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}
