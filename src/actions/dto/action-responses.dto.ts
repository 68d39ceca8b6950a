import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ACTION_STATUSES, ActionStatus, ATTEMPT_OUTCOMES, AttemptOutcome, FAILURE_POLICIES, FailurePolicy } from '../../vocabulary';
import type {
  ActionCommandResource,
  ActionResource,
  AttemptResource,
  BoundedActionResource,
  ContentBytesResource,
  GroupPauseResource,
  GroupResource,
  GroupStoredStateSummary,
  StatsResource,
} from '../action.resource';
import type { OtherTenantsStats, TenantsStats, TenantStats } from '../stats/tenant-stats.reader';
import type { Describes } from './describes';
import type { GroupHandlerStateResource } from '../groups/group-handler-state.resource';

/*
 * Response shapes for the OpenAPI document only. The controllers return the
 * plain objects of action.resource.ts; these classes describe the same
 * fields (see "REST API" in README.md) so that /docs-json carries schemas and
 * examples, and each implements its resource (describes.ts), so a drift fails the build.
 */

/** An action (README.md, "REST API"). */
export class ActionResponseDto implements Describes<ActionResource, ActionResponseDto> {
  @ApiProperty({ example: '17', description: '64-bit id as a decimal string' })
  id: string;

  @ApiProperty({
    example: '26',
    nullable: true,
    type: String,
    description: 'Group key (decimal string), or null: belongs to no group. For a string-keyed action, the lock id its groupKey was interned under',
  })
  lockId: string | null;

  @ApiProperty({ example: null, nullable: true, type: String, description: 'The string group key it was enqueued with, or null (an integer group, or none)' })
  groupKey: string | null;

  @ApiProperty({ example: 'instance.create', description: 'Handler name' })
  type: string;

  @ApiProperty({ example: { instanceId: 26 }, type: 'object', additionalProperties: true })
  payload: Record<string, unknown>;

  @ApiProperty({ enum: ACTION_STATUSES, example: 'pending' })
  status: ActionStatus;

  @ApiProperty({ example: 1, description: 'Executions started so far' })
  attempts: number;

  @ApiProperty({
    example: 5,
    minimum: 1,
    maximum: 100,
    description:
      'Attempts allowed (a handler option may cap it; the number shown is the number enforced). Releases do not count; a manual retry grants it afresh',
  })
  maxAttempts: number;

  @ApiProperty({ enum: FAILURE_POLICIES, example: 'block' })
  onFailure: FailurePolicy;

  @ApiProperty({ example: '2025-01-01T12:00:00.000Z', format: 'date-time', description: 'Not claimable before' })
  runAt: string;

  @ApiProperty({ example: '2025-01-01T12:00:00.000Z', format: 'date-time' })
  createdAt: string;

  @ApiProperty({ example: null, nullable: true, type: String, format: 'date-time' })
  startedAt: string | null;

  @ApiProperty({ example: null, nullable: true, type: String, format: 'date-time' })
  finishedAt: string | null;

  @ApiProperty({ example: null, nullable: true, description: 'What the handler returned (any JSON)' })
  result: unknown;

  @ApiProperty({ example: null, nullable: true, type: String })
  lastError: string | null;

  @ApiProperty({ example: 'create-26', nullable: true, type: String })
  idempotencyKey: string | null;

  @ApiProperty({ example: null, nullable: true, type: String, description: 'The failed `skip` action this one retries' })
  retryOf: string | null;

  @ApiProperty({ example: 0, description: 'Attempts counted toward maxAttempts (releases and lost leases not proven to be its fault are not)' })
  chargedAttempts: number;

  @ApiProperty({
    example: null,
    nullable: true,
    type: String,
    format: 'date-time',
    description: 'When cancellation of the running action was requested; it ends `cancelled` once its handler has stopped or its lease has expired',
  })
  cancelRequestedAt: string | null;

  @ApiProperty({
    example: false,
    description:
      'A suspect: lost with its instance twice in a row (once alone or with one other) or three times; runs one per instance, and a further loss is charged (poison detection)',
  })
  quarantined: boolean;

  @ApiProperty({ example: 'default', description: 'The tenant it belongs to: `default` when enqueued without one (docs/tenants.md)' })
  tenant: string;
}

/** One trace entry: an ended execution attempt. */
export class AttemptResponseDto implements Describes<AttemptResource, AttemptResponseDto> {
  @ApiProperty({ example: 1 })
  attempt: number;

  @ApiProperty({ example: 'host-1234-ab12' })
  workerId: string;

  @ApiProperty({ example: '2025-01-01T12:00:01.000Z', format: 'date-time' })
  startedAt: string;

  @ApiProperty({ example: '2025-01-01T12:00:02.000Z', format: 'date-time' })
  finishedAt: string;

  @ApiProperty({ enum: ATTEMPT_OUTCOMES, example: 'done' })
  outcome: AttemptOutcome;

  @ApiProperty({ example: null, nullable: true, type: String, description: 'Readable message; long ones keep their first 3 000 and last 1 000 characters' })
  error: string | null;

  @ApiProperty({ example: null, nullable: true, type: String, description: "The thrown Error's stack (first 8 000 characters)" })
  errorStack: string | null;

  @ApiProperty({
    example: null,
    nullable: true,
    type: String,
    description: 'The id of the first action of the ordered chunk this attempt ran in (a chunk handler), or null: run alone',
  })
  chunkOf: string | null;
}

/** What cancel and retry answer (ActionCommandResource): the action, bounded by MAX_RESPONSE_BYTES. */
export class ActionCommandResponseDto extends ActionResponseDto implements Describes<ActionCommandResource, ActionCommandResponseDto> {
  @ApiProperty({
    example: false,
    description:
      "True when the action's payload, result and lastError together are over MAX_RESPONSE_BYTES: the command took effect, and they are left out (`payload` is `{}`, `result` and `lastError` are null; read them by SQL)",
  })
  contentOmitted: boolean;
}

/** The sizes of an action's content that was left out (ContentBytesResource). */
export class ContentBytesDto implements Describes<ContentBytesResource, ContentBytesDto> {
  @ApiProperty({ example: 20971532, description: 'Bytes of the payload as JSON text' })
  payload: number;

  @ApiProperty({ example: 0, description: 'Bytes of the result as JSON text (0: none)' })
  result: number;

  @ApiProperty({ example: 0, description: 'Bytes of the last error (0: none)' })
  lastError: number;

  @ApiPropertyOptional({ example: 0, description: "Bytes of the trace's worker ids, errors and stacks; only on `GET /actions/:id`" })
  trace?: number;
}

/** An action as a read bounded by MAX_RESPONSE_BYTES sends it (BoundedActionResource). */
export class BoundedActionResponseDto extends ActionResponseDto implements Describes<BoundedActionResource, BoundedActionResponseDto> {
  @ApiProperty({
    example: false,
    description:
      'True when its payload, result and lastError were left out (`payload` is `{}`, `result` and `lastError` are null): they cannot fit MAX_RESPONSE_BYTES ' +
      'beside the rest of the answer, or `content=false` was asked. Read them with `GET /actions/:id`, or by SQL when over MAX_RESPONSE_BYTES',
  })
  contentOmitted: boolean;

  @ApiPropertyOptional({ type: ContentBytesDto, description: 'The sizes of what was left out; only when `contentOmitted`' })
  contentBytes?: ContentBytesDto;
}

/** `GET /actions/:id`: the action with its trace. */
export class ActionWithTraceResponseDto
  extends BoundedActionResponseDto
  implements Describes<BoundedActionResource & { trace: AttemptResource[] }, ActionWithTraceResponseDto>
{
  @ApiProperty({ type: [AttemptResponseDto], description: "Under `content=false`, each attempt's `error` and `errorStack` are null" })
  trace: AttemptResponseDto[];
}

/** `POST /actions/batch`. */
export class ActionsBatchResponseDto implements Describes<{ actions: ActionResource[] }, ActionsBatchResponseDto> {
  @ApiProperty({ type: [ActionResponseDto], description: 'In input order' })
  actions: ActionResponseDto[];
}

/** `GET /actions`. */
export class ActionsPageResponseDto implements Describes<{ items: BoundedActionResource[]; nextCursor: string | null }, ActionsPageResponseDto> {
  @ApiProperty({
    type: [BoundedActionResponseDto],
    description: 'An action whose content can never fit MAX_RESPONSE_BYTES is listed without it (`contentOmitted`)',
  })
  items: BoundedActionResponseDto[];

  @ApiProperty({ example: '67', nullable: true, type: String, description: 'Pass as `after` for the next page; null on the last page' })
  nextCursor: string | null;
}

/** `GET /groups/:lockId`. */
export class GroupResponseDto implements Describes<GroupResource, GroupResponseDto> {
  @ApiProperty({ example: '26' })
  lockId: string;

  @ApiProperty({ example: null, nullable: true, type: String, description: 'The string group key (groupKey at enqueue), or null for an integer group' })
  groupKey: string | null;

  @ApiProperty({
    type: BoundedActionResponseDto,
    nullable: true,
    description: 'The head; without its content when that is over MAX_RESPONSE_BYTES (`contentOmitted`)',
  })
  head: BoundedActionResponseDto | null;

  @ApiProperty({ example: false })
  running: boolean;

  @ApiProperty({ example: 3 })
  pendingCount: number;

  @ApiProperty({ example: false })
  blocked: boolean;

  @ApiProperty({ example: null, nullable: true, type: String })
  blockedReason: string | null;

  @ApiProperty({
    example: false,
    description: "True when an active pause holds the group back (its own, its head's type or the queue's): nothing of it starts until resumed",
  })
  paused: boolean;

  @ApiProperty({ type: () => GroupPauseDto, nullable: true, description: 'The pause that holds it (its own first, then the type, then the queue), or null' })
  pausedBy: GroupPauseDto | null;

  @ApiProperty({
    type: () => GroupStoredStateDto,
    nullable: true,
    description: 'The state its handlers stored with ctx.groupState (version, last change), or null; the value: GET /groups/{lockId}/state',
  })
  storedState: GroupStoredStateDto | null;
}

/** `storedState` of `GET /groups/:lockId`. */
export class GroupStoredStateDto implements Describes<GroupStoredStateSummary, GroupStoredStateDto> {
  @ApiProperty({ example: 3, description: 'Completed actions that changed it (1 for the first)' })
  version: number;

  @ApiProperty({ example: '2026-01-01T00:00:00.000Z', description: 'When it last changed' })
  updatedAt: string;
}

/** `pausedBy` of `GET /groups/:lockId`: the pause holding the group back. */
export class GroupPauseDto implements Describes<GroupPauseResource, GroupPauseDto> {
  @ApiProperty({ example: '3', description: 'End it with DELETE /pauses/{id}' })
  id: string;

  @ApiProperty({ enum: ['queue', 'type', 'group'], example: 'group' })
  scope: 'queue' | 'type' | 'group';

  @ApiProperty({ example: 'payments API down', nullable: true, type: String })
  reason: string | null;

  @ApiProperty({ example: null, nullable: true, type: String, format: 'date-time', description: 'When a timed pause ends; null: until resumed' })
  until: string | null;
}

/** `pendingBreakdown` of `GET /stats`. */
export class PendingBreakdownDto implements Describes<StatsResource['pendingBreakdown'], PendingBreakdownDto> {
  @ApiProperty({ example: 2, description: 'Pending heads whose runAt has passed, neither paused nor waiting for a token: claimable now' })
  due: number;

  @ApiProperty({ example: 1, description: 'Pending heads whose runAt is in the future (neither paused nor held back by a group rate limit)' })
  scheduled: number;

  @ApiProperty({ example: 1, description: 'Pending heads held back by a pause of the queue, their type or their group, whatever their runAt' })
  paused: number;

  @ApiProperty({
    example: 0,
    description: "Pending heads, not paused, waiting for a token of their type's or their group's rate limit (due ones beyond what the bucket allows now)",
  })
  waitingForRateLimit: number;

  @ApiProperty({ example: 12, description: 'Pending actions waiting for an earlier action of their group' })
  behindHead: number;
}

/** `paused` of `GET /stats`. */
export class PausedCountsDto {
  @ApiProperty({ example: false, description: 'The whole queue is paused (or draining): nothing is claimed' })
  queue: boolean;

  @ApiProperty({ example: 0, description: 'Action types paused (a handler back-off for its whole type included)' })
  types: number;

  @ApiProperty({ example: 1, description: 'Groups paused' })
  groups: number;
}

/** One tenant of `tenants.top` of `GET /stats`. */
export class TenantStatsDto implements Describes<TenantStats, TenantStatsDto> {
  @ApiProperty({ example: 'acme', description: 'The tenant (`default` for actions enqueued without one)' })
  tenant: string;

  @ApiProperty({ example: 1200, description: 'Its pending actions: due, scheduled, paused and behind their group head alike' })
  backlog: number;

  @ApiProperty({ example: 4, description: 'Its running actions' })
  running: number;

  @ApiProperty({
    example: 12.5,
    nullable: true,
    type: Number,
    description:
      'Seconds since its oldest due pending head (a group head, or an ungrouped action, with runAt passed) became due: now - max(runAt, createdAt). ' +
      'A head held back by a pause or a rate limit counts. Null when the tenant has no due head.',
  })
  oldestWaitingAgeSeconds: number | null;

  @ApiProperty({ example: 1, description: 'Its weight (action_tenant_settings; 1 when it has no settings)' })
  weight: number;

  @ApiProperty({ example: null, nullable: true, type: Number, description: 'The most of its actions running at once; null: no cap' })
  maxRunning: number | null;
}

/** `tenants.others` of `GET /stats`: every tenant after the top ones, summed. */
export class OtherTenantsStatsDto implements Describes<OtherTenantsStats, OtherTenantsStatsDto> {
  @ApiProperty({ example: 0, description: 'How many tenants with pending or running work are not listed in `top`' })
  tenants: number;

  @ApiProperty({ example: 0, description: 'Their pending actions, summed' })
  backlog: number;

  @ApiProperty({ example: 0, description: 'Their running actions, summed' })
  running: number;

  @ApiProperty({ example: null, nullable: true, type: Number, description: 'The largest of their oldest-waiting ages (s); null when none has a due head' })
  oldestWaitingAgeSeconds: number | null;
}

/** `tenants` of `GET /stats`. */
export class TenantsStatsDto implements Describes<TenantsStats, TenantsStatsDto> {
  @ApiProperty({
    type: TenantStatsDto,
    isArray: true,
    description: 'Tenants with pending or running work, the largest backlog first (ties: more running, then by name), at most STATS_TENANTS_TOP (default 10)',
  })
  top: TenantStatsDto[];

  @ApiProperty({ type: OtherTenantsStatsDto })
  others: OtherTenantsStatsDto;
}

/** `GET /stats`. */
export class StatsResponseDto implements Describes<StatsResource, StatsResponseDto> {
  @ApiProperty({
    example: { pending: 15, running: 1, done: 40, failed: 0, cancelled: 2 },
    type: 'object',
    additionalProperties: { type: 'integer' },
    description:
      "Actions by status. Exact while the actions table is at most 8 MB; beyond, `done` is PostgreSQL's estimate " +
      '(its live row count minus the other statuses) and `failed` / `cancelled` are exact up to 10 000, then estimated. ' +
      '`estimated` lists the statuses whose count is an estimate.',
  })
  byStatus: Record<ActionStatus, number>;

  @ApiProperty({ enum: ACTION_STATUSES, isArray: true, example: [], description: 'Statuses whose count in `byStatus` is an estimate' })
  estimated: ActionStatus[];

  @ApiProperty({ type: PendingBreakdownDto })
  pendingBreakdown: PendingBreakdownDto;

  @ApiProperty({
    example: 1.5,
    nullable: true,
    type: Number,
    description:
      'Seconds the oldest due, claimable action (a pending group head, or an ungrouped pending action, with runAt passed) has waited ' +
      'since it became due: now - max(runAt, createdAt). Scheduled actions (runAt in the future), paused ones, ones whose type has no ' +
      "rate-limit token now, and actions waiting behind their group's head do not count. Null when no action is claimable.",
  })
  oldestPendingAgeSeconds: number | null;

  @ApiProperty({ example: 0, description: 'Groups held by a failed head under the `block` policy' })
  blockedGroups: number;

  @ApiProperty({ type: PausedCountsDto, description: 'What is paused now (POST /pauses, POST /queue/drain, aq_pause_* in SQL)' })
  paused: PausedCountsDto;
  @ApiProperty({
    type: TenantsStatsDto,
    description: 'Live work per tenant (docs/tenants.md, "Watching tenants"): the tenants with the largest backlog by name, the rest summed',
  })
  tenants: TenantsStatsDto;
}

/** Nest's standard error body; `message` names the offending field. */
export class ErrorResponseDto {
  @ApiProperty({ example: 400 })
  statusCode: number;

  @ApiProperty({ oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }], example: ['maxAttempts must not be greater than 100'] })
  message: string | string[];

  @ApiPropertyOptional({ example: 'Bad Request' })
  error?: string;
}

/** A group's stored state (`GET /groups/:lockId/state`). */
export class GroupHandlerStateResponseDto implements Describes<GroupHandlerStateResource, GroupHandlerStateResponseDto> {
  @ApiProperty({ example: '26' })
  lockId: string;

  @ApiProperty({ example: { balance: 120 }, description: 'The JSON value the handlers stored with ctx.groupState.set' })
  state: unknown;

  @ApiProperty({ example: 3, description: 'Completed actions that changed it (1 for the first)' })
  version: number;

  @ApiProperty({ example: '2026-01-01T00:00:00.000Z', description: 'When it last changed' })
  updatedAt: string;
}
