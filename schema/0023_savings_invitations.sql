-- Savings invitations (issue 24 item 8): sharing a goal needs the invited person's consent. The
-- owner invites an account by the email they type; it joins rm_savings_members only by
-- accepting. Members added before this change (savings.member_added) stay members: they were
-- added under the rule of the time, may have entered movements, and can now leave on their own.
-- Status is derived when read: pending until answered or past expires_at (the server's clock).
CREATE TABLE rm_savings_invitations (
  invitation_id uuid        PRIMARY KEY,
  owner_id      uuid        NOT NULL,
  goal_id       uuid        NOT NULL,
  user_id       uuid        NOT NULL,           -- the invitee; the owner is never shown it
  email         text        NOT NULL,           -- as the owner typed it
  invited_at    timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  answer        text        CHECK (answer IN ('accepted', 'declined')),
  answered_at   timestamptz
);
-- The owner's list of a goal's invitations, led by the owner like every query of a goal.
CREATE INDEX rm_savings_invitations_goal_idx ON rm_savings_invitations (owner_id, goal_id, invited_at);
-- The invitee's own list and the lookup of an invitation they answer, led by the invitee.
CREATE INDEX rm_savings_invitations_user_idx ON rm_savings_invitations (user_id, invited_at);
