import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The app's own business table: the queue never touches it. */
@Entity('orders')
export class Order {
  @PrimaryColumn('int')
  id: number;

  @Column('text')
  customer: string;

  /** `placed`, then `shipped` once the order.ship action has run. */
  @Column('text')
  status: string;
}
