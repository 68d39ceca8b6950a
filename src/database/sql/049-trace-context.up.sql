-- The enqueuer's trace context, kept with the action so that each attempt's
-- span joins the enqueuer's trace (src/tracing/queue-spans.ts).
--
-- A W3C Trace Context `traceparent` of version 00
-- (https://www.w3.org/TR/trace-context/#traceparent-header): the REST API
-- stores the active span's context or the request's `traceparent` header; a
-- SQL producer may set it too, and the CHECK refuses anything else (SQLSTATE
-- 23514, constraint actions_traceparent_format), so a worker never reads a
-- value it cannot parse. Null: no trace context (each attempt starts a trace).
--
-- 55 bytes when set, nothing when null (a null costs a bit in the row's null
-- bitmap). ADD COLUMN without a default rewrites nothing; the CHECK scans the
-- table once, under the ACCESS EXCLUSIVE lock this migration holds anyway.
ALTER TABLE actions
  ADD COLUMN traceparent text
  CONSTRAINT actions_traceparent_format CHECK (
    traceparent ~ '^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$'
    -- All-zero trace or parent ids are invalid (the recommendation, same section).
    AND substr(traceparent, 4, 32) <> repeat('0', 32)
    AND substr(traceparent, 37, 16) <> repeat('0', 16));
