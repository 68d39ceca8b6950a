/*
 * The shapes the dashboard reads, taken from the service's own resource types
 * (type-only imports: nothing of the server is bundled), so a change of the
 * REST API that the dashboard does not follow fails `npm run build`.
 */
import type { BoundedActionResource } from '../../src/actions/action.resource';

export type { ActionResource, AttemptResource, BoundedActionResource, GroupResource, StatsResource } from '../../src/actions/action.resource';
export type { ActivityBucketResource, ActivityResource } from '../../src/actions/stats/activity.resource';
export type {
  BlockedGroupResource,
  BlockedGroupsPage,
  DeepestGroupResource,
  GroupTimelineResource,
  TimelineActionResource,
} from '../../src/actions/groups/group-views.resource';
export type { ActionStatus, AttemptOutcome } from '../../src/vocabulary';
export type { ScheduleResource } from '../../src/schedules/schedule.resource';
export type { BulkOperationResource } from '../../src/bulk-operations/bulk-operation.resource';
export type { DrainResource, PauseResource } from '../../src/flow-control/pause.resource';
export type { RateLimitResource } from '../../src/flow-control/rate-limit.resource';
export type { GroupRateLimitResource } from '../../src/flow-control/group-rate-limit.resource';

/** `GET /actions` (the controller returns it without a named type). */
export interface ActionsPage {
  items: BoundedActionResource[];
  nextCursor: string | null;
}
