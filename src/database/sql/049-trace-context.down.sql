-- Back to actions without a stored trace context.
ALTER TABLE actions DROP COLUMN traceparent;
