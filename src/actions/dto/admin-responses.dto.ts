import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ACTION_STATUSES, ActionStatus, FAILURE_POLICIES, FailurePolicy } from '../../vocabulary';
import type {
  BlockedGroupResource,
  BlockedGroupsPage,
  CurrentAttemptResource,
  DeepestGroupResource,
  GroupTimelineResource,
  TimelineActionResource,
} from '../groups/group-views.resource';
import type { ActivityBucketResource, ActivityResource } from '../stats/activity.resource';
import { AttemptResponseDto } from './action-responses.dto';
import type { Describes } from './describes';

/*
 * Response shapes of the operator reads (blocked and deepest groups, a group's
 * timeline, recent activity), for the OpenAPI document only; the controllers
 * return the plain objects of group-views.resource.ts and activity.resource.ts,
 * which each class implements (describes.ts), so a drift fails the build.
 */

/** The size of an error left out of an answer. */
export class ErrorBytesDto {
  @ApiProperty({ example: 9000000, description: 'Bytes of the last error' })
  lastError: number;
}

/** The sizes of a timeline entry's content left out of an answer. */
export class TimelineContentBytesDto extends ErrorBytesDto {
  @ApiProperty({ example: 80000, description: "Bytes of its trace's worker ids and errors" })
  trace: number;
}

const OMITTED_ERROR =
  'True when `lastError` was left out (null): it cannot fit MAX_RESPONSE_BYTES beside the rest of the answer; read it with `GET /actions/:id`';

/** The failed head of a blocked group. */
export class BlockedHeadDto implements Describes<BlockedGroupResource['head'], BlockedHeadDto> {
  @ApiProperty({ example: '41' })
  id: string;

  @ApiProperty({ example: 'instance.delete' })
  type: string;

  @ApiProperty({ example: 5 })
  attempts: number;

  @ApiProperty({ example: 5 })
  maxAttempts: number;

  @ApiProperty({ example: 'cloud API answered 503', nullable: true, type: String, description: 'The error of its last attempt' })
  lastError: string | null;

  @ApiProperty({ example: '2025-01-01T12:00:00.000Z', format: 'date-time' })
  createdAt: string;

  @ApiProperty({ example: '2025-01-01T12:00:09.000Z', nullable: true, type: String, format: 'date-time', description: 'When it failed (blocked since)' })
  failedAt: string | null;

  @ApiProperty({ example: false, description: OMITTED_ERROR })
  contentOmitted: boolean;

  @ApiPropertyOptional({ type: ErrorBytesDto, description: 'The size of what was left out; only when `contentOmitted`' })
  contentBytes?: ErrorBytesDto;
}

/** One blocked group. */
export class BlockedGroupDto implements Describes<BlockedGroupResource, BlockedGroupDto> {
  @ApiProperty({ example: '26' })
  lockId: string;

  @ApiProperty({ example: null, nullable: true, type: String, description: 'The string group key (groupKey at enqueue), or null for an integer group' })
  groupKey: string | null;

  @ApiProperty({ type: BlockedHeadDto })
  head: BlockedHeadDto;

  @ApiProperty({ example: 3, description: 'Actions of the group waiting behind the failed head' })
  waiting: number;
}

/** `GET /groups/blocked`. */
export class BlockedGroupsPageDto implements Describes<BlockedGroupsPage, BlockedGroupsPageDto> {
  @ApiProperty({ type: [BlockedGroupDto], description: 'In lockId order' })
  items: BlockedGroupDto[];

  @ApiProperty({ example: '26', nullable: true, type: String, description: 'Pass as `after` for the next page; null on the last page' })
  nextCursor: string | null;
}

/** The head of a deep group. */
export class DeepGroupHeadDto implements Describes<NonNullable<DeepestGroupResource['head']>, DeepGroupHeadDto> {
  @ApiProperty({ example: '101' })
  id: string;

  @ApiProperty({ example: 'instance.update' })
  type: string;

  @ApiProperty({ enum: ACTION_STATUSES, example: 'running' })
  status: ActionStatus;

  @ApiProperty({ example: 1 })
  attempts: number;

  @ApiProperty({ example: '2025-01-01T12:00:00.000Z', format: 'date-time' })
  runAt: string;

  @ApiProperty({ example: null, nullable: true, type: String })
  lastError: string | null;

  @ApiProperty({ example: false, description: OMITTED_ERROR })
  contentOmitted: boolean;

  @ApiPropertyOptional({ type: ErrorBytesDto, description: 'The size of what was left out; only when `contentOmitted`' })
  contentBytes?: ErrorBytesDto;
}

/** One group of `GET /groups/deepest`. */
export class DeepestGroupDto implements Describes<DeepestGroupResource, DeepestGroupDto> {
  @ApiProperty({ example: '26' })
  lockId: string;

  @ApiProperty({ example: null, nullable: true, type: String, description: 'The string group key (groupKey at enqueue), or null for an integer group' })
  groupKey: string | null;

  @ApiProperty({ example: 1200, description: 'Actions holding the group: pending, running, or a failed head under `block`' })
  depth: number;

  @ApiProperty({ type: DeepGroupHeadDto, nullable: true })
  head: DeepGroupHeadDto | null;
}

/** `GET /groups/deepest`. */
export class DeepestGroupsDto implements Describes<{ items: DeepestGroupResource[] }, DeepestGroupsDto> {
  @ApiProperty({ type: [DeepestGroupDto], description: 'Deepest first' })
  items: DeepestGroupDto[];
}

/** The attempt a running action is in now. */
export class CurrentAttemptDto implements Describes<CurrentAttemptResource, CurrentAttemptDto> {
  @ApiProperty({ example: 2, description: 'The attempt number (fencing token)' })
  attempt: number;

  @ApiProperty({ example: 'host-1234-ab12' })
  workerId: string;

  @ApiProperty({ example: '2025-01-01T12:00:01.000Z', format: 'date-time' })
  startedAt: string;

  @ApiProperty({ example: '2025-01-01T12:00:31.000Z', format: 'date-time' })
  leaseExpiresAt: string;
}

/** One action on a group's timeline. */
export class TimelineActionDto implements Describes<TimelineActionResource, TimelineActionDto> {
  @ApiProperty({ example: '17' })
  id: string;

  @ApiProperty({ example: 'instance.create' })
  type: string;

  @ApiProperty({ enum: ACTION_STATUSES, example: 'done' })
  status: ActionStatus;

  @ApiProperty({ example: 1 })
  attempts: number;

  @ApiProperty({ example: 5 })
  maxAttempts: number;

  @ApiProperty({ enum: FAILURE_POLICIES, example: 'block' })
  onFailure: FailurePolicy;

  @ApiProperty({ example: '2025-01-01T12:00:00.000Z', format: 'date-time' })
  runAt: string;

  @ApiProperty({ example: '2025-01-01T12:00:00.000Z', format: 'date-time' })
  createdAt: string;

  @ApiProperty({ example: '2025-01-01T12:00:01.000Z', nullable: true, type: String, format: 'date-time' })
  startedAt: string | null;

  @ApiProperty({ example: '2025-01-01T12:00:02.000Z', nullable: true, type: String, format: 'date-time' })
  finishedAt: string | null;

  @ApiProperty({ example: null, nullable: true, type: String })
  lastError: string | null;

  @ApiProperty({
    type: [AttemptResponseDto],
    description: 'Ended attempts, in attempt order (retries, lease expiries and releases included); empty when `contentOmitted`',
  })
  trace: AttemptResponseDto[];

  @ApiProperty({ type: CurrentAttemptDto, nullable: true, description: 'The running attempt, while the action runs' })
  current: CurrentAttemptDto | null;

  @ApiProperty({
    example: false,
    description: 'True when its last error and trace were left out (`lastError` null, `trace` empty): alone they are over MAX_RESPONSE_BYTES; read them by SQL',
  })
  contentOmitted: boolean;

  @ApiPropertyOptional({ type: TimelineContentBytesDto, description: 'The sizes of what was left out; only when `contentOmitted`' })
  contentBytes?: TimelineContentBytesDto;
}

/** `GET /groups/:lockId/timeline`. */
export class GroupTimelineDto implements Describes<GroupTimelineResource, GroupTimelineDto> {
  @ApiProperty({ example: '26' })
  lockId: string;

  @ApiProperty({ type: [TimelineActionDto], description: "The group's most recent actions, in id order (the order they run in)" })
  actions: TimelineActionDto[];

  @ApiProperty({ example: '12', nullable: true, type: String, description: 'Pass as `before` for older actions; null when there are none' })
  nextBefore: string | null;
}

/** One 10-second bucket of `GET /stats/activity`. */
export class ActivityBucketDto implements Describes<ActivityBucketResource, ActivityBucketDto> {
  @ApiProperty({ example: '2025-01-01T12:00:00.000Z', format: 'date-time' })
  start: string;

  @ApiProperty({ example: 80, description: 'Actions that ended done in the bucket' })
  done: number;

  @ApiProperty({ example: 1 })
  failed: number;

  @ApiProperty({ example: 0 })
  cancelled: number;

  @ApiProperty({ example: 8.1, description: '(done + failed + cancelled) / bucketSeconds' })
  endedPerSecond: number;

  @ApiProperty({
    example: 12.5,
    nullable: true,
    type: Number,
    description:
      'Mean enqueue-to-start latency (ms): from when the action became due (the later of createdAt and runAt) to its first start, over the ended actions that ran once from their due time',
  })
  meanLatencyMs: number | null;

  @ApiProperty({ example: 40.2, nullable: true, type: Number })
  maxLatencyMs: number | null;
}

/** `GET /stats/activity`. */
export class ActivityDto implements Describes<ActivityResource, ActivityDto> {
  @ApiProperty({ example: 10 })
  bucketSeconds: number;

  @ApiProperty({
    example: '2025-01-01T12:15:00.000Z',
    format: 'date-time',
    description: 'Endings stamped up to this instant are counted (about 5 s behind now); buckets end before it',
  })
  countedUpTo: string;

  @ApiProperty({ type: [ActivityBucketDto], description: 'Oldest first, empty buckets included' })
  buckets: ActivityBucketDto[];
}
