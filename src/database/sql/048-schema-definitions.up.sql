-- 048: the current definition of each function, trigger function and view
-- lives in one file, src/database/functions/<name>.sql, applied after the
-- numbered migrations (src/database/apply-definitions.ts) when its checksum
-- differs from the one recorded here: a definition changes by editing its
-- file, not by restating it whole in a new migration (046 restated
-- aq_finish_attempts for the fourth time). Numbered migrations keep the
-- tables, indexes and data; from 047 on they define no function or view.
--
-- One row per definition applied: its file's sha256 and the release that
-- applied it. A release refuses to start on a row written by a newer one
-- (it would run against, or downgrade, definitions it does not know).
CREATE TABLE schema_definitions (
  name       text PRIMARY KEY,
  sha256     text NOT NULL,
  release    text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);

COMMENT ON TABLE schema_definitions IS
  'The definitions of src/database/functions applied to this schema: checksum and release of each (048-schema-definitions.up.sql).';
