import { Logger, Module, OnModuleInit } from '@nestjs/common';
import { ServeStaticModule } from '@nestjs/serve-static';
import { DASHBOARD_ASSETS_DIR, DASHBOARD_PATH, dashboardAssetsBuilt, setDashboardHeaders } from './dashboard-assets';

/**
 * The operators' dashboard: the static files built from ui/ (dist/ui), served
 * at /ui by @nestjs/serve-static. The files hold no data and need no API key
 * (a browser cannot send a header when it opens a page); the page asks for the
 * key and sends it as a header on every REST call it makes. Imported only when
 * the instance serves the API and DASHBOARD_ENABLED is on.
 */
@Module({
  imports: [
    ServeStaticModule.forRoot({
      rootPath: DASHBOARD_ASSETS_DIR,
      serveRoot: DASHBOARD_PATH,
      // Any other path answers with the page (a reload of a deep link), except
      // one that names a file (`/ui/nope.js`): a missing file is a 404, not HTML.
      exclude: [`${DASHBOARD_PATH}/*path.:extension`],
      serveStaticOptions: { setHeaders: setDashboardHeaders, fallthrough: true },
    }),
  ],
})
export class DashboardModule implements OnModuleInit {
  private readonly logger = new Logger(DashboardModule.name);

  onModuleInit(): void {
    if (!dashboardAssetsBuilt())
      this.logger.warn(`Dashboard files not found in ${DASHBOARD_ASSETS_DIR}: run npm run build; ${DASHBOARD_PATH} answers 404 until then`);
  }
}
