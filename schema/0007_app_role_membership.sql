-- The server connects as the schema owner and switches to lifelog_app for its work (the
-- connection's `role` parameter). A superuser may always switch; an owner that is not one (the
-- admin user of a managed PostgreSQL, with CREATEROLE) must be a member of the role, or every
-- pooled connection fails with "permission denied to set role" while migrations succeed.
DO $$
BEGIN
  IF NOT pg_has_role(current_user, 'lifelog_app', 'MEMBER') THEN
    EXECUTE format('GRANT lifelog_app TO %I', current_user);
  END IF;
END
$$;
