-- The server connects as the schema owner and switches to lifelog_app for its work (the
-- connection's `role` parameter). A superuser may always switch; an owner that is not one (the
-- admin user of a managed PostgreSQL, with CREATEROLE) must be allowed to SET the role, or every
-- pooled connection fails with "permission denied to set role" while migrations succeed.
-- PostgreSQL 16 split membership into ADMIN, INHERIT and SET, so the check differs by version.
-- A refusal is a warning, not a failed migration: an operator can grant the role by hand, or
-- log in as a restricted role with DATABASE_ROLE empty.
DO $$
BEGIN
  IF current_setting('server_version_num')::int >= 160000 THEN
    IF NOT pg_has_role(current_user, 'lifelog_app', 'SET') THEN
      EXECUTE format('GRANT lifelog_app TO %I WITH SET TRUE', current_user);
    END IF;
  ELSIF NOT pg_has_role(current_user, 'lifelog_app', 'MEMBER') THEN
    EXECUTE format('GRANT lifelog_app TO %I', current_user);
  END IF;
EXCEPTION WHEN insufficient_privilege OR invalid_grant_operation THEN
  RAISE WARNING 'lifelog: % cannot be allowed to act as lifelog_app (%): grant it by hand, or set DATABASE_ROLE empty and log in as a restricted role',
    current_user, SQLERRM;
END
$$;
