/** A maximum group depth: `type` null is the global limit (src/database/sql/035-group-depth-limits.up.sql). */
export interface GroupDepthLimitResource {
  type: string | null;
  maxDepth: number;
  /** ISO 8601, UTC. */
  updatedAt: string;
}

/** A row of action_group_depth_limits. */
export interface GroupDepthLimitRow {
  action_type: string | null;
  max_depth: number;
  updated_at: Date;
}

/** The resource of a row. */
export function toGroupDepthLimitResource(row: GroupDepthLimitRow): GroupDepthLimitResource {
  return { type: row.action_type, maxDepth: row.max_depth, updatedAt: row.updated_at.toISOString() };
}
