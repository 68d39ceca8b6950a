import { InjectRepository } from '@nestjs/typeorm';
import { ActionContext, ActionHandler, ActionHandlerHost, QueuedAction } from 'ordered-action-queue';
import { Repository } from 'typeorm';
import { Order } from './order.entity';

/** Runs `order.ship` actions: one at a time per customer (the lock id), in the order they were placed. */
@ActionHandler({ type: 'order.ship', timeoutMs: 10_000 })
export class ShipOrderHandler extends ActionHandlerHost {
  constructor(@InjectRepository(Order) private readonly orders: Repository<Order>) {
    super();
  }

  async handle(action: QueuedAction, ctx: ActionContext) {
    const orderId = Number(action.payload.orderId);
    await this.orders.update({ id: orderId }, { status: 'shipped' });
    ctx.logger.log(`order ${orderId} shipped (attempt ${ctx.attempt})`);
    return { orderId, shipped: true };
  }
}
