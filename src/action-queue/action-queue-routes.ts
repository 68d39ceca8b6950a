import { DynamicModule, Type } from '@nestjs/common';
import { RouterModule, Routes } from '@nestjs/core';
import { ActionsHttpModule } from '../actions/actions-http.module';
import { DASHBOARD_PATH } from '../dashboard/dashboard-assets';
import { DashboardModule } from '../dashboard/dashboard.module';
import { HealthModule } from '../health/health.module';
import { MetricsEndpointModule } from '../metrics-endpoint/metrics-endpoint.module';
import { ActionQueueRoutesOptions } from './action-queue-options.interface';

/** The `routes` option with every field filled in. */
export type ResolvedRoutes = Required<ActionQueueRoutesOptions>;

/**
 * Fills in the `routes` option: `true` mounts the action routes at the root,
 * `false` or absent mounts nothing.
 */
export function resolveRoutes(routes: boolean | ActionQueueRoutesOptions | undefined): ResolvedRoutes | null {
  if (!routes) return null;
  const given = routes === true ? {} : routes;
  if (given.dashboard && given.actions === false) {
    throw new Error('Invalid ActionQueueModule option routes.dashboard: the dashboard reads the action routes; set routes.actions to true');
  }
  return {
    prefix: (given.prefix ?? '').replace(/^\/+|\/+$/g, ''),
    actions: given.actions ?? true,
    health: given.health ?? false,
    metrics: given.metrics ?? false,
    dashboard: given.dashboard ?? false,
  };
}

/**
 * The modules serving the chosen routes, plus Nest's RouterModule putting them
 * under the prefix when there is one.
 */
export function routeModules(routes: ResolvedRoutes | null): Array<Type<unknown> | DynamicModule> {
  if (!routes) return [];
  const modules: Type<unknown>[] = [
    ...(routes.actions ? [ActionsHttpModule] : []),
    ...(routes.health ? [HealthModule] : []),
    ...(routes.metrics ? [MetricsEndpointModule] : []),
  ];
  // Static files, not controllers: the prefix goes into the path, not through RouterModule.
  const dashboard = routes.dashboard ? [DashboardModule.at(`${routes.prefix ? `/${routes.prefix}` : ''}${DASHBOARD_PATH}`)] : [];
  if (!routes.prefix || modules.length === 0) return [...modules, ...dashboard];
  const tree: Routes = modules.map((module) => ({ path: routes.prefix, module }));
  return [...modules, RouterModule.register(tree), ...dashboard];
}
