import { DynamicModule, Type } from '@nestjs/common';
import { RouterModule, Routes } from '@nestjs/core';
import { ActionsHttpModule } from '../actions/actions-http.module';
import { BulkOperationsHttpModule } from '../bulk-operations/bulk-operations-http.module';
import { DASHBOARD_PATH } from '../dashboard/dashboard-assets';
import { DashboardModule } from '../dashboard/dashboard.module';
import { ActionQueueDocsModule } from '../docs/action-queue-docs.module';
import { DOCS_PATH } from '../docs/openapi';
import { GroupDepthLimitsHttpModule } from '../group-depth-limits/group-depth-limits-http.module';
import { FlowControlHttpModule } from '../flow-control/flow-control-http.module';
import { HealthModule } from '../health/health.module';
import { SchedulesHttpModule } from '../schedules/schedules-http.module';
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
    docs: given.docs ?? false,
  };
}

/**
 * The modules serving the chosen routes, plus Nest's RouterModule putting them
 * under the prefix when there is one, and the dashboard and OpenAPI pages when asked.
 */
export function routeModules(routes: ResolvedRoutes | null): Array<Type<unknown> | DynamicModule> {
  if (!routes) return [];
  const modules: Type<unknown>[] = [
    ...(routes.actions ? [ActionsHttpModule, GroupDepthLimitsHttpModule, SchedulesHttpModule, BulkOperationsHttpModule, FlowControlHttpModule] : []),
    ...(routes.health ? [HealthModule] : []),
    ...(routes.metrics ? [MetricsEndpointModule] : []),
  ];
  // Pages, not controllers: the prefix goes into their path, not through RouterModule.
  const root = routes.prefix ? `/${routes.prefix}` : '';
  const pages = [
    ...(routes.dashboard ? [DashboardModule.at(`${root}${DASHBOARD_PATH}`)] : []),
    ...(routes.docs ? [ActionQueueDocsModule.at(`${root}/${DOCS_PATH}`, modules)] : []),
  ];
  if (!routes.prefix || modules.length === 0) return [...modules, ...pages];
  const tree: Routes = modules.map((module) => ({ path: routes.prefix, module }));
  return [...modules, RouterModule.register(tree), ...pages];
}
