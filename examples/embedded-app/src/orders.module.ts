import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Order } from './order.entity';
import { OrderEventsListener } from './order-events.listener';
import { OrdersController } from './orders.controller';
import { OrdersService } from './orders.service';
import { ShipOrderHandler } from './ship-order.handler';

/** The app's orders feature; its handler and its queue-event listener are ordinary providers, found by the queue at start-up. */
@Module({
  imports: [TypeOrmModule.forFeature([Order])],
  controllers: [OrdersController],
  providers: [OrdersService, ShipOrderHandler, OrderEventsListener],
})
export class OrdersModule {}
