import { MigrationInterface, QueryRunner } from 'typeorm';

/** The app's own schema, in the app's own migration table (the queue keeps its migrations apart). */
export class CreateOrders1735689600000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE orders (id int PRIMARY KEY, customer text NOT NULL, status text NOT NULL)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE orders`);
  }
}
