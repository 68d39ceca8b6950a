import { ActionContext, ActionHandler, ActionHandlerHost, QueuedAction } from '../handlers';
import { simulateCloudCall } from './simulated-cloud-call';

/** Action types of the demo handlers. */
export const DEMO_ACTION_TYPES = {
  create: 'instance.create',
  update: 'instance.update',
  delete: 'instance.delete',
} as const;

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
