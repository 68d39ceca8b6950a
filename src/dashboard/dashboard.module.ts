import { DynamicModule, Logger, Module, OnModuleInit } from '@nestjs/common';
import { ServeStaticModule } from '@nestjs/serve-static';
import { DASHBOARD_ASSETS_DIR, dashboardAssetsBuilt, setDashboardHeaders } from './dashboard-assets';

/**
 * The operators' dashboard: the static files built from ui/ (dist/ui), served
 * by @nestjs/serve-static. The files hold no data and need no API key (a
 * browser cannot send a header when it opens a page); the page asks for the
 * key and sends it as a header on every REST call it makes, to the API one
 * level above the page (so `/queue/ui` talks to `/queue/actions`). Imported
 * only where the action routes are served: by the service when
 * DASHBOARD_ENABLED is on, by ActionQueueModule when `routes.dashboard` is.
 */
@Module({})
export class DashboardModule implements OnModuleInit {
  private readonly logger = new Logger(DashboardModule.name);

  /**
   * The dashboard served at `path`.
   *
   * @param path where, e.g. `/ui` (DASHBOARD_PATH) or `/queue/ui` (under the module's route prefix).
   */
  static at(path: string): DynamicModule {
    return {
      module: DashboardModule,
      imports: [
        ServeStaticModule.forRoot({
          rootPath: DASHBOARD_ASSETS_DIR,
          serveRoot: path,
          // Any other path answers with the page (a reload of a deep link), except
          // one that names a file (`/ui/nope.js`): a missing file is a 404, not HTML.
          exclude: [`${path}/*path.:extension`],
          serveStaticOptions: { setHeaders: setDashboardHeaders, fallthrough: true },
        }),
      ],
    };
  }

  onModuleInit(): void {
    if (!dashboardAssetsBuilt())
      this.logger.warn(`Dashboard files not found in ${DASHBOARD_ASSETS_DIR}: run npm run build; the dashboard answers 404 until then`);
  }
}
