-- Back to release 0.3's layout. Before this file runs, the migration has
-- restored 0.3's functions and views from the released migrations
-- themselves and dropped those 0.3 did not have (released-definitions.ts).
DROP TABLE schema_definitions;
