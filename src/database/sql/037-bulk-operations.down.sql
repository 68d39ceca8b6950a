-- Back to no bulk operation audit.
DROP TABLE IF EXISTS action_bulk_operations;
