-- Citus mode (docs/scale-out.md, "Partitions"): the partition of a group, the
-- first 32 bits of md5 of the group's text as an unsigned integer, modulo the
-- partition count. The group's text is the decimal lock id of an integer
-- group and the key of a string group. Identical to partitionOfGroup
-- (src/database/citus/partition-of-group.ts), which the REST side uses: a spec
-- compares both. md5 because both sides have it built in and it never
-- changes; hashtext is internal to PostgreSQL and may change between majors.
CREATE OR REPLACE FUNCTION aq_partition_of(p_group text, p_partitions integer)
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
 SET search_path FROM CURRENT
AS $function$ SELECT (('x' || left(md5(p_group), 8))::bit(32)::bigint % p_partitions)::integer $function$;
