-- Appends no longer NOTIFY inside their own transaction. A transaction that has queued a NOTIFY
-- takes PostgreSQL's global notify lock at commit and keeps it until the commit is flushed, so
-- every append of every stream committed one at a time and group commit was lost. The appending
-- process now sends one NOTIFY after its commits (EventStore/ReaderWaker.swift); readers still poll.
DROP TRIGGER events_notify_insert ON events;
DROP FUNCTION events_notify();
