-- Finance: inline read models of categories, budgets and transactions, and monthly totals kept
-- inline so summaries and analytics add up a few rows per month instead of every transaction.
-- Amounts are bigint minor units with a char(3) ISO 4217 currency: never floating point.
CREATE TABLE rm_fin_categories (
  owner_id    uuid        NOT NULL,
  category_id uuid        NOT NULL,
  name        text        NOT NULL,
  emoji       text,
  kind        text        NOT NULL CHECK (kind IN ('income', 'expense')),
  color       text,
  archived    boolean     NOT NULL,
  revision    bigint      NOT NULL,             -- events applied to this category: its ETag
  created_at  timestamptz NOT NULL,
  PRIMARY KEY (owner_id, category_id)
);

-- Budget steps: from from_month on (until a later step) the monthly budget is amount; a NULL
-- amount ends it.
CREATE TABLE rm_fin_budgets (
  owner_id    uuid    NOT NULL,
  category_id uuid    NOT NULL,
  from_month  date    NOT NULL,                 -- the month's first day
  amount      bigint,
  currency    char(3),
  PRIMARY KEY (owner_id, category_id, from_month)
);

CREATE TABLE rm_fin_transactions (
  owner_id       uuid        NOT NULL,
  transaction_id uuid        NOT NULL,
  kind           text        NOT NULL CHECK (kind IN ('income', 'expense')),
  amount         bigint      NOT NULL CHECK (amount > 0),
  currency       char(3)     NOT NULL,
  category_id    uuid,
  date           date        NOT NULL,
  note           text,
  version        bigint      NOT NULL,          -- the transaction stream's version: its ETag
  created_at     timestamptz NOT NULL,
  PRIMARY KEY (owner_id, transaction_id)
);
-- Newest first, as the list pages.
CREATE INDEX rm_fin_transactions_list_idx ON rm_fin_transactions (owner_id, date DESC, created_at DESC, transaction_id DESC);

-- Per owner, month, currency, kind and category (the nil uuid for none): what summaries of whole
-- months and analytics read. Kept by the same projector, in the same transaction.
CREATE TABLE rm_fin_month_totals (
  owner_id    uuid    NOT NULL,
  month       date    NOT NULL,
  currency    char(3) NOT NULL,
  kind        text    NOT NULL,
  category_id uuid    NOT NULL,
  total       bigint  NOT NULL,
  count       integer NOT NULL,
  PRIMARY KEY (owner_id, month, currency, kind, category_id)
);
