-- The field rules of an I/O sample, as the Flink job checks every one it decodes (AvroRecords.check and
-- checkHistogram), in its order and with its words: io_sample_invalid is '' for a sample that meets them all,
-- else 'invalid: ' (DecodeException's code) and the first rule broken. The queue's views (sql/materialized) send such
-- a sample to dead_letters instead of io_samples, so both paths keep and reject the same samples. Scheme 1 is
-- LatencyHistogram.SCHEME_ID, 4351 its MAX_INDEX; tests/fixtures/record_rules/io_samples.json holds the cases
-- both paths are tested on. Columns are named with their table: the views' output columns carry the same names
-- (toUInt64(ops) AS ops), and a bare name in WITH or WHERE would mean that output, not the field.
WITH
    io_samples_queue.latency_bucket_index AS rule_bucket_index,
    io_samples_queue.latency_bucket_count AS rule_bucket_count,
    -- the first position whose bucket breaks a rule, 0 if none (Java's loop stops there)
    arrayFirstIndex(i -> rule_bucket_index[i] < 0 OR rule_bucket_index[i] > 4351
                         OR (i > 1 AND rule_bucket_index[i] <= rule_bucket_index[i - 1]) OR rule_bucket_count[i] < 0,
                    arrayEnumerate(rule_bucket_index)) AS rule_bad_bucket,
    multiIf(length(rule_bucket_index) != length(rule_bucket_count),
                concat('latency_bucket_index and latency_bucket_count differ in length (',
                       toString(length(rule_bucket_index)), ' != ', toString(length(rule_bucket_count)), ')'),
            empty(rule_bucket_index), '',
            io_samples_queue.latency_hist_scheme != 1,
                concat('latency_hist_scheme ', toString(io_samples_queue.latency_hist_scheme),
                       ' is not supported (only 1)'),
            rule_bad_bucket > 0
                AND (rule_bucket_index[rule_bad_bucket] < 0 OR rule_bucket_index[rule_bad_bucket] > 4351),
                concat('bucket index ', toString(rule_bucket_index[rule_bad_bucket]), ' out of range [0, 4351]'),
            rule_bad_bucket > 1 AND rule_bucket_index[rule_bad_bucket] <= rule_bucket_index[rule_bad_bucket - 1],
                concat('bucket indexes not strictly ascending at position ', toString(rule_bad_bucket - 1)),
            rule_bad_bucket > 0,
                concat('negative bucket count ', toString(rule_bucket_count[rule_bad_bucket]), ' at position ',
                       toString(rule_bad_bucket - 1)),
            -- the total wraps past 2^63 as Java's long does
            arraySum(rule_bucket_count) > 0 AND io_samples_queue.latency_min_ns > io_samples_queue.latency_max_ns,
                concat('latency_min_ns ', toString(io_samples_queue.latency_min_ns), ' > latency_max_ns ',
                       toString(io_samples_queue.latency_max_ns)),
            '') AS rule_histogram,
    arrayFirst(rule -> rule != '', [
        ioscaleNonNegativeRule(['ops', 'bytes'], [io_samples_queue.ops, io_samples_queue.bytes]),
        ioscaleNonNegativeFiniteRule('outstanding_ios', io_samples_queue.outstanding_ios),
        ioscaleNonNegativeRule(
            ['errors', 'latency_count', 'latency_sum_ns', 'latency_min_ns', 'latency_max_ns', 'interval_ms'],
            [io_samples_queue.errors, io_samples_queue.latency_count, io_samples_queue.latency_sum_ns,
             io_samples_queue.latency_min_ns, io_samples_queue.latency_max_ns, io_samples_queue.interval_ms]),
        rule_histogram]) AS rule_broken,
    if(rule_broken = '', '', concat('invalid: ', rule_broken)) AS io_sample_invalid
