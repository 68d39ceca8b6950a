import type { ActionStatus, FailurePolicy } from '../../vocabulary';
import type { AttemptResource } from '../action.resource';

/** One blocked group (`GET /groups/blocked`): its failed head and how many actions wait behind it. */
export interface BlockedGroupResource {
  lockId: string;
  /** The string group key, or null for an integer group. */
  groupKey: string | null;
  /** The failed head. */
  head: {
    id: string;
    type: string;
    attempts: number;
    maxAttempts: number;
    lastError: string | null;
    createdAt: string;
    failedAt: string | null;
    /** True when `lastError` was left out (null): it cannot fit MAX_RESPONSE_BYTES beside the rest of the page. */
    contentOmitted: boolean;
    /** The size of what was left out; only when `contentOmitted`. */
    contentBytes?: { lastError: number };
  };
  /** Actions of the group waiting behind the head. */
  waiting: number;
}

/** `GET /groups/blocked`: a page in lock id order. */
export interface BlockedGroupsPage {
  items: BlockedGroupResource[];
  /** Pass as `after` for the next page; null on the last page. */
  nextCursor: string | null;
}

/** One group of `GET /groups/deepest`. */
export interface DeepestGroupResource {
  lockId: string;
  /** The string group key, or null for an integer group. */
  groupKey: string | null;
  /** Actions holding the group: pending, running, or a failed head under `block`. */
  depth: number;
  head: {
    id: string;
    type: string;
    status: ActionStatus;
    attempts: number;
    runAt: string;
    lastError: string | null;
    /** True when `lastError` was left out (null): it cannot fit MAX_RESPONSE_BYTES beside the rest of the list. */
    contentOmitted: boolean;
    /** The size of what was left out; only when `contentOmitted`. */
    contentBytes?: { lastError: number };
  } | null;
}

/** The attempt a running action is in now (no trace row yet). */
export interface CurrentAttemptResource {
  attempt: number;
  workerId: string;
  startedAt: string;
  leaseExpiresAt: string;
}

/** One action on a group's timeline, with every ended attempt and the running one. */
export interface TimelineActionResource {
  id: string;
  type: string;
  status: ActionStatus;
  attempts: number;
  maxAttempts: number;
  onFailure: FailurePolicy;
  runAt: string;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  lastError: string | null;
  /** Its ended attempts; empty when `contentOmitted`. */
  trace: AttemptResource[];
  current: CurrentAttemptResource | null;
  /**
   * True when its last error and trace were left out (`lastError` null, `trace`
   * empty): alone they are over MAX_RESPONSE_BYTES. Read them by SQL.
   */
  contentOmitted: boolean;
  /** The sizes of what was left out (the trace: its worker ids and errors); only when `contentOmitted`. */
  contentBytes?: { lastError: number; trace: number };
}

/** `GET /groups/:lockId/timeline`. */
export interface GroupTimelineResource {
  lockId: string;
  /** The group's most recent actions before `before`, in id order (execution order). */
  actions: TimelineActionResource[];
  /** Pass as `before` for older actions; null when there are none. */
  nextBefore: string | null;
}
