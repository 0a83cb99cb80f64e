-- The reminder job's minute (issue 30): who has anything due in (from, to] is found by index
-- on the time of day in each zone, not by reading every user with reminders on. A minute with
-- nothing due then costs a few index probes whatever the number of users. They do not lead
-- with the owner: the planner reads across all users (docs/citus.md: on Citus each worker
-- would answer for its own shards).
CREATE INDEX rm_users_zone_morning ON rm_users (timezone, morning_time);
CREATE INDEX rm_users_zone_evening ON rm_users (timezone, evening_time);
CREATE INDEX rm_habits_reminder_time ON rm_habits (reminder_time) WHERE reminder_time IS NOT NULL AND NOT archived;
CREATE INDEX rm_tasks_due_time ON rm_tasks (due_time) WHERE due_time IS NOT NULL AND NOT completed;
-- Users whose zone changed lately are planned whatever their times (an old zone may still rule).
CREATE INDEX rm_user_zones_since ON rm_user_zones (since);
