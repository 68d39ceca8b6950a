import { Body, Controller, HttpCode, Post, UnprocessableEntityException } from '@nestjs/common';
import { OrdersService } from './orders.service';

/** The app's own route: `POST /orders` places an order (`failAfterEnqueue: true` makes it fail late). */
@Controller('orders')
export class OrdersController {
  constructor(private readonly orders: OrdersService) {}

  @Post()
  @HttpCode(201)
  async place(@Body() body: { id: number; customer: string; failAfterEnqueue?: boolean }) {
    try {
      return { actionId: await this.orders.place({ id: body.id, customer: body.customer }, body.failAfterEnqueue) };
    } catch (error) {
      throw new UnprocessableEntityException((error as Error).message);
    }
  }
}
