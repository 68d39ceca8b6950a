/*
 * The shapes the dashboard reads, taken from the service's own resource types
 * (type-only imports: nothing of the server is bundled), so a change of the
 * REST API that the dashboard does not follow fails `npm run build`.
 */
export type { ActionResource, AttemptResource, GroupResource, StatsResource } from '../../src/actions/action.resource';
export type { ActivityBucketResource, ActivityResource } from '../../src/actions/activity.resource';
export type {
  BlockedGroupResource,
  BlockedGroupsPage,
  DeepestGroupResource,
  GroupTimelineResource,
  TimelineActionResource,
} from '../../src/actions/group-views.resource';
export type { ActionStatus, AttemptOutcome } from '../../src/actions/action-status';

/** `GET /actions`. */
export interface ActionsPage {
  items: import('../../src/actions/action.resource').ActionResource[];
  nextCursor: string | null;
}
