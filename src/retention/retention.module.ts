import { Module } from '@nestjs/common';
import { RetentionService } from './retention.service';

/** The retention job (RETENTION_DAYS). */
@Module({ providers: [RetentionService], exports: [RetentionService] })
export class RetentionModule {}
