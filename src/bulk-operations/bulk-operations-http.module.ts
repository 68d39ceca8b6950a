import { Module } from '@nestjs/common';
import { BulkOperationsController } from './bulk-operations.controller';
import { BulkOperationsService } from './bulk-operations.service';

/** The REST routes of bulk retry and cancel, and their audit. */
@Module({ controllers: [BulkOperationsController], providers: [BulkOperationsService] })
export class BulkOperationsHttpModule {}
