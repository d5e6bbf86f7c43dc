-- Records the pipeline could not decode, grouped by stage, topic and reason: what is being lost, and why.
--
-- Nothing is dropped silently: ClickHouse's Kafka tables (kafka_handle_error_mode = 'stream'), the Flink job
-- and the importers write every record they reject to ioscale.dead_letters with the reason. This counts them
-- so a schema mismatch or a broken collector shows up as one line with a count, not as missing data.
--
-- Parameters:
--   since_hours   UInt32 = 24      look back this many hours (0 = everything kept, 90 days)
--   limit         UInt32 = 50      rows to return
--
-- Columns:
--   stage           who rejected it: clickhouse-kafka, flink, importer
--   topic           the Kafka topic (or source) of the record
--   reason_pattern  the reason with numbers replaced by N, so one cause is one row
--   records         rejected records
--   first_seen      first rejection in the period, UTC
--   last_seen       last rejection in the period, UTC
--   example_reason  one full reason, as written
--   example_offset  partition/offset of one such record, to fetch it from Kafka
--   raw_bytes       total size of the rejected payloads, bytes (for a record ClickHouse decoded but rejected
--                   by a field rule, reason 'invalid: ...', the record as JSON: the Kafka engine keeps the
--                   bytes of unparsable messages only)
--
-- Notes:
--   Numbers (offsets, byte positions, ids) are masked in reason_pattern: otherwise every record would be its
--   own group. dead_letters is a plain MergeTree (no FINAL needed).
SELECT
    stage,
    topic,
    replaceRegexpAll(trimBoth(reason), '[0-9]+', 'N') AS reason_pattern,
    count()                                           AS records,
    min(received_at)                                  AS first_seen,
    max(received_at)                                  AS last_seen,
    substring(trimBoth(any(reason)), 1, 300)          AS example_reason,
    concat(toString(any(partition)), '/', toString(any(offset))) AS example_offset,
    sum(length(raw_message))                          AS raw_bytes
FROM ioscale.dead_letters
WHERE {since_hours:UInt32} = 0 OR received_at >= now64(3) - toIntervalHour({since_hours:UInt32})
GROUP BY stage, topic, reason_pattern
ORDER BY records DESC, last_seen DESC
LIMIT {limit:UInt32}
