-- A round trip and nothing else: libpq's, to set beside the store's client doing the same.
SELECT 1;
