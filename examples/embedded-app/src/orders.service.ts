import { Injectable } from '@nestjs/common';
import { ActionQueue } from 'ordered-action-queue';
import { DataSource } from 'typeorm';
import { Order } from './order.entity';

/** Places orders: the order row and its order.ship action commit together, or not at all. */
@Injectable()
export class OrdersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly actions: ActionQueue,
  ) {}

  /**
   * Saves the order and enqueues its shipping in one transaction.
   * @param failAfterEnqueue throw after the enqueue (a business rule failing late): nothing is kept.
   * @returns the id of the order.ship action.
   */
  place(order: { id: number; customer: string }, failAfterEnqueue = false): Promise<string> {
    return this.dataSource.transaction(async (manager) => {
      await manager.insert(Order, { ...order, status: 'placed' });
      // One group per customer, named by a string: the queue's database gives each distinct key a group of its own.
      const { action } = await this.actions.enqueue({ type: 'order.ship', groupKey: `customer:${order.customer}`, payload: { orderId: order.id } }, manager);
      if (failAfterEnqueue) throw new Error(`order ${order.id} refused after the enqueue: the transaction rolls back`);
      return action.id;
    });
  }
}
