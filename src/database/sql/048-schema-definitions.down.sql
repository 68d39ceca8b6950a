-- Back to the layout before the definitions layer. Before this file runs,
-- the migration has restored the functions and views of migrations 001..047
-- from those files themselves and dropped the ones they did not have
-- (released-definitions.ts).
DROP TABLE schema_definitions;
