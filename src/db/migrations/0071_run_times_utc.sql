-- Runs' lifted times were the record's text as sent, so offsets and other RFC 3339
-- spellings ordered wrongly in listings and weekly statistics. They are now the UTC instant
-- in toISOString form; this converts the rows stored before. SQLite's strftime reads the
-- RFC 3339 forms with a 'T' or a space, fractional seconds and a Z or +hh:mm offset, and
-- answers NULL for text it cannot read, which is left as it was. The records stay as sent.
UPDATE runs SET
  started_at = COALESCE(strftime('%Y-%m-%dT%H:%M:%fZ', started_at), started_at),
  finished_at = COALESCE(strftime('%Y-%m-%dT%H:%M:%fZ', finished_at), finished_at)
WHERE started_at IS NOT NULL OR finished_at IS NOT NULL;

UPDATE runs SET summary = json_set(summary, '$.startedAt', started_at, '$.finishedAt', finished_at)
WHERE summary IS NOT NULL AND json_valid(summary);
