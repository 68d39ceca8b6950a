/** One bucket of `GET /stats/activity`. */
export interface ActivityBucketResource {
  /** Start of the bucket (ISO 8601); it lasts `bucketSeconds`. */
  start: string;
  /** Actions that ended in the bucket, by final status. */
  done: number;
  failed: number;
  cancelled: number;
  /** (done + failed + cancelled) / bucketSeconds. */
  endedPerSecond: number;
  /** Enqueue-to-start latency (ms) of the ended actions that ran once from their due time; null when none. */
  meanLatencyMs: number | null;
  maxLatencyMs: number | null;
}

/** `GET /stats/activity`. */
export interface ActivityResource {
  bucketSeconds: number;
  /** Endings stamped up to this instant are counted; buckets end before it. */
  countedUpTo: string;
  buckets: ActivityBucketResource[];
}
