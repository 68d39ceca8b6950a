-- Bulk retry and cancel (issue 21): the audit of every bulk operation, dry
-- runs included: who (the API key's id, 'anonymous' without API_KEY, 'sql'
-- for an operator's own rows), when, the filter, how many actions matched and
-- how many were changed. The operation itself runs in bounded chunks, one
-- short transaction each (src/bulk-operations/bulk-operations.service.ts), so
-- `applied` grows while it runs and `finished_at` is set at its end.
CREATE TABLE action_bulk_operations (
  id          bigint GENERATED ALWAYS AS IDENTITY,
  operation   text        NOT NULL,
  dry_run     boolean     NOT NULL,
  filter      jsonb       NOT NULL,
  actor       text        NOT NULL DEFAULT 'sql',
  matched     bigint      NOT NULL DEFAULT 0,
  applied     bigint      NOT NULL DEFAULT 0,
  started_at  timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  error       text,
  CONSTRAINT action_bulk_operations_pkey PRIMARY KEY (id),
  CONSTRAINT action_bulk_operations_operation_valid CHECK (operation IN ('retry', 'cancel')),
  CONSTRAINT action_bulk_operations_filter_is_object CHECK (jsonb_typeof(filter) = 'object')
);
