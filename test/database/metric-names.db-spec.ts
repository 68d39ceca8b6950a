import request from 'supertest';
import { METRICS_NEW_IN_0_4 } from '../../src/metrics/metric-names';
import { metricSample, waitFor, withTestApp } from '../support';

/** Names of the metric families of an exposition (its `# TYPE` lines). */
function families(text: string): string[] {
  return [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]);
}

/**
 * `/metrics` names (src/metrics/metric-names.ts): the queue's metrics carry
 * the product prefix `action_queue_`; their 0.3 names (`actions_*`) are served
 * beside them only with METRICS_LEGACY_NAMES=true, with the same values.
 */
describe('metric names in /metrics', () => {
  describe('by default', () => {
    const t = withTestApp('metricnames');

    it('serves the action_queue_ names and none of the old actions_ ones', async () => {
      await t.pg.query(`INSERT INTO actions (lock_id, type, payload) VALUES (1, 'instance.create', '{"durationMs": 0}')`);
      const text = await waitFor(async () => {
        const body = (await request(t.url).get('/metrics').expect(200)).text;
        return (metricSample(body, 'action_queue_claimed_total', 'type="instance.create"') ?? 0) >= 1 ? body : undefined;
      }, 15_000);
      expect(families(text)).toEqual(expect.arrayContaining(['action_queue_claimed_total', 'action_queue_depth', 'action_queue_handler_duration_seconds']));
      expect(families(text).filter((name) => name.startsWith('actions_'))).toEqual([]);
    });
  });

  describe('with METRICS_LEGACY_NAMES=true', () => {
    const t = withTestApp('metriclegacy', { env: { METRICS_LEGACY_NAMES: 'true' } });

    it('also serves every renamed metric under its 0.3 name, with the same samples', async () => {
      await t.pg.query(`INSERT INTO actions (lock_id, type, payload) VALUES (1, 'instance.create', '{"durationMs": 0}')`);
      const text = await waitFor(async () => {
        const body = (await request(t.url).get('/metrics').expect(200)).text;
        return (metricSample(body, 'actions_claimed_total', 'type="instance.create"') ?? 0) >= 1 ? body : undefined;
      }, 15_000);
      const names = families(text);
      // Metrics new in 0.4 had no 0.3 name to keep.
      const renamed = names.filter((name) => name.startsWith('action_queue_') && !METRICS_NEW_IN_0_4.has(name));
      const legacy = names.filter((name) => name.startsWith('actions_'));
      expect(legacy).toHaveLength(renamed.length);
      expect(legacy).toEqual(expect.arrayContaining(['actions_claimed_total', 'actions_queue_depth', 'actions_handler_duration_seconds']));
      expect(metricSample(text, 'actions_claimed_total', 'type="instance.create"')).toBe(
        metricSample(text, 'action_queue_claimed_total', 'type="instance.create"'),
      );
      expect(metricSample(text, 'actions_queue_depth', 'status="done"')).toBe(metricSample(text, 'action_queue_depth', 'status="done"'));
    });
  });
});
