import { INestApplication } from '@nestjs/common';
import { AppModuleOptions } from './app.module';
import { loadSettings } from '../config/settings';
import { DemoHandlersModule } from '../demo/demo-handlers.module';
import { createServiceApp } from './service-app.factory';

/**
 * This repository's service app, as `npm start` builds it (the service
 * starter's app plus the demo handlers unless DEMO_HANDLERS=false), for the
 * tests to run in-process. Does not listen; call `app.listen(port)`.
 *
 * @param options database URL, optional settings (default from process.env) and extra modules.
 * @throws Error naming the setting when a setting is invalid.
 */
export function createApp(options: AppModuleOptions): Promise<INestApplication> {
  const settings = options.settings ?? loadSettings(process.env);
  const demo = settings.DEMO_HANDLERS ? [DemoHandlersModule] : [];
  return createServiceApp({ ...options, settings, imports: [...demo, ...(options.imports ?? [])] });
}
