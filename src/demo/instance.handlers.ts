import { ActionContext, ActionHandler, ActionHandlerHost, ChunkHandlerHost, ChunkOutcome, chunkDone, chunkFailed, QueuedAction } from '../handlers';
import { simulateCloudCall } from './simulated-cloud-call';

/** Action types of the demo handlers. */
export const DEMO_ACTION_TYPES = {
  create: 'instance.create',
  update: 'instance.update',
  delete: 'instance.delete',
  sync: 'instance.sync',
} as const;

/** Most actions per call of the demo chunk handler (instance.sync). */
export const DEMO_SYNC_CHUNK = 50;

/** Demo: "create instance N" against a simulated cloud API. */
@ActionHandler(DEMO_ACTION_TYPES.create)
export class CreateInstanceHandler extends ActionHandlerHost {
  handle(action: QueuedAction, ctx: ActionContext) {
    return simulateCloudCall('create', action, ctx);
  }
}

/** Demo: "update instance N" against a simulated cloud API. */
@ActionHandler(DEMO_ACTION_TYPES.update)
export class UpdateInstanceHandler extends ActionHandlerHost {
  handle(action: QueuedAction, ctx: ActionContext) {
    return simulateCloudCall('update', action, ctx);
  }
}

/** Demo: "delete instance N" against a simulated cloud API. */
@ActionHandler(DEMO_ACTION_TYPES.delete)
export class DeleteInstanceHandler extends ActionHandlerHost {
  handle(action: QueuedAction, ctx: ActionContext) {
    return simulateCloudCall('delete', action, ctx);
  }
}

/**
 * Demo of an ordered chunk handler: "sync instance N to the inventory", up
 * to DEMO_SYNC_CHUNK consecutive actions of a group per call, as one batch
 * call would send them. The batch takes the longest `durationMs` of its
 * actions; an action's `failAttempts` fails it (and the chunk stops there).
 */
@ActionHandler({ type: DEMO_ACTION_TYPES.sync, chunk: { max: DEMO_SYNC_CHUNK } })
export class SyncInstancesHandler extends ChunkHandlerHost {
  async handleChunk(actions: QueuedAction[], ctx: ActionContext): Promise<ChunkOutcome[]> {
    const longest = actions.reduce((a, b) => (Number(b.payload.durationMs ?? 0) > Number(a.payload.durationMs ?? 0) ? b : a));
    const outcomes: ChunkOutcome[] = [];
    for (const action of actions) {
      try {
        const call = simulateCloudCall('sync', action === longest ? action : { ...action, payload: { ...action.payload, durationMs: 0 } }, {
          ...ctx,
          attempt: action.attempt,
        });
        outcomes.push(chunkDone(await call));
      } catch (error) {
        outcomes.push(chunkFailed(error));
        break;
      }
    }
    return outcomes;
  }
}
