-- The operator's SQL path (psql): one function per scope.
--   SELECT aq_pause_queue('downstream outage');   SELECT aq_resume_queue();
--   SELECT aq_pause_type('invoice.send');          SELECT aq_resume_type('invoice.send');
--   SELECT aq_pause_group(26);                     SELECT aq_resume_group(26);
--   SELECT aq_pause_group_key('tenant:42');        SELECT aq_resume_group_key('tenant:42');
CREATE OR REPLACE FUNCTION aq_resume_queue()
 RETURNS boolean
 LANGUAGE sql
 SET search_path FROM CURRENT
AS $function$ SELECT aq_resume('queue', NULL, NULL) $function$;
