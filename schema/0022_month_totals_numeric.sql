-- A month's total of one category is a sum of amounts, and a sum is not bounded like one amount
-- is (at most 10^16 minor units): about 923 transactions of 999999999999.9999 CLF, or 92,234 of
-- 999999999999.99 EUR, pass bigint's 9.2·10^18 in one month. As bigint the next such write failed
-- (22003) and was refused. numeric is exact at any size, so a write never fails for a total, and
-- every read adds the totals up as numeric too (never cast back to bigint).
ALTER TABLE rm_fin_month_totals ALTER COLUMN total TYPE numeric;
