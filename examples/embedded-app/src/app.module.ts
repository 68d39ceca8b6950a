import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ActionQueueModule } from 'ordered-action-queue';
import { DataSource } from 'typeorm';
import { CreateOrders1735689600000 } from './create-orders.migration';
import { Order } from './order.entity';
import { OrdersModule } from './orders.module';

@Module({
  imports: [
    TypeOrmModule.forRoot({
      type: 'postgres',
      url: process.env.DATABASE_URL,
      entities: [Order],
      migrations: [CreateOrders1735689600000],
      migrationsRun: true,
      // The queue runs its statements on these connections too: its schema (action_queue) after the app's own.
      extra: { options: '-c search_path=public,action_queue' },
    }),
    // The queue shares the app's DataSource (so it can join its transactions) and serves its routes under /queue.
    ActionQueueModule.forRootAsync({
      inject: [DataSource],
      useFactory: (dataSource: DataSource) => ({ database: { dataSource }, worker: { concurrency: 4, pollIntervalMs: 500 } }),
      routes: { prefix: 'queue', health: true },
    }),
    OrdersModule,
  ],
})
export class AppModule {}
