-- Back to no recurring actions.
DROP TABLE IF EXISTS action_schedule_ticks;
DROP TABLE IF EXISTS action_schedules;
