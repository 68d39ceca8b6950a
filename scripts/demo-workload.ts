/** One action as the demo sends it to `POST /actions/batch`. */
export interface DemoAction {
  lockId: string;
  type: string;
  payload: Record<string, unknown>;
}

/**
 * The generated lifecycle workload of the demo: for each instance, in order,
 * `instance.create`, 2-4 `instance.update`, `instance.delete`, each with a
 * random `durationMs` (the demo handlers sleep that long).
 *
 * @param instances how many instances (groups); their lock ids are
 *   `firstLockId`, `firstLockId + 1`, ...
 * @param random a [0, 1) random source (Math.random by default).
 * @returns one list of actions per instance, in the order they must run.
 */
export function lifecycleWorkload(instances: number, firstLockId: number, random: () => number = Math.random): DemoAction[][] {
  const duration = () => 5 + Math.floor(random() * 56); // 5..60 ms
  const out: DemoAction[][] = [];
  for (let i = 0; i < instances; i++) {
    const instanceId = firstLockId + i;
    const lockId = String(instanceId);
    const steps: DemoAction[] = [{ lockId, type: 'instance.create', payload: { instanceId, durationMs: duration() } }];
    const updates = 2 + Math.floor(random() * 3);
    for (let u = 1; u <= updates; u++) {
      steps.push({ lockId, type: 'instance.update', payload: { instanceId, step: u, durationMs: duration() } });
    }
    steps.push({ lockId, type: 'instance.delete', payload: { instanceId, durationMs: duration() } });
    out.push(steps);
  }
  return out;
}

/**
 * Cuts per-group sequences into batches whose groups interleave: each next
 * action is the next step of a randomly chosen group that still has steps, so
 * consecutive ids belong to different groups while each group keeps its order
 * (batches are sent one after another, so order across batches holds too).
 *
 * @param groups the per-group sequences (not modified).
 * @param batchSize actions per batch (1..1000, the API's limit).
 * @returns the batches, in sending order.
 */
export function interleavedBatches(groups: DemoAction[][], batchSize: number, random: () => number = Math.random): DemoAction[][] {
  const cursors = groups.map((steps) => ({ steps, next: 0 }));
  const open = cursors.filter((c) => c.steps.length > 0);
  const batches: DemoAction[][] = [];
  let batch: DemoAction[] = [];
  while (open.length > 0) {
    const pick = Math.floor(random() * open.length);
    const cursor = open[pick];
    batch.push(cursor.steps[cursor.next++]);
    if (cursor.next >= cursor.steps.length) open.splice(pick, 1);
    if (batch.length === batchSize) {
      batches.push(batch);
      batch = [];
    }
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}
