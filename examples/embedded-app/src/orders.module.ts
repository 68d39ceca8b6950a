import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Order } from './order.entity';
import { OrdersController } from './orders.controller';
import { OrdersService } from './orders.service';
import { ShipOrderHandler } from './ship-order.handler';

/** The app's orders feature; its handler is an ordinary provider, found by the queue at start-up. */
@Module({
  imports: [TypeOrmModule.forFeature([Order])],
  controllers: [OrdersController],
  providers: [OrdersService, ShipOrderHandler],
})
export class OrdersModule {}
