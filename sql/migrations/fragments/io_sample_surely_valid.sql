-- io_sample_surely_valid: true for a sample that meets every rule of io_sample_rules, found with whole-array
-- functions (no lambda, no message). Never true for a sample that breaks a rule; false for some valid ones (a
-- min above the max with no buckets, say), which io_sample_invalid then judges. The queue's views evaluate
-- io_sample_invalid -- its per-bucket lambda and its messages were most of a view's CPU -- only where this is
-- false (OR and AND evaluate their right side lazily). A WITH item: it follows io_sample_rules after a comma.
    (io_samples_queue.ops >= 0 AND io_samples_queue.bytes >= 0
     AND io_samples_queue.outstanding_ios >= 0 AND io_samples_queue.outstanding_ios < inf  -- false for NaN
     AND least(io_samples_queue.errors, io_samples_queue.latency_count, io_samples_queue.latency_sum_ns,
               io_samples_queue.latency_min_ns, io_samples_queue.latency_max_ns, io_samples_queue.interval_ms) >= 0
     AND io_samples_queue.latency_min_ns <= io_samples_queue.latency_max_ns
     AND length(io_samples_queue.latency_bucket_index) = length(io_samples_queue.latency_bucket_count)
     AND (empty(io_samples_queue.latency_bucket_index)
          OR (io_samples_queue.latency_hist_scheme = 1
              AND arrayMin(io_samples_queue.latency_bucket_index) >= 0
              AND arrayMax(io_samples_queue.latency_bucket_index) <= 4351
              AND arrayMin(io_samples_queue.latency_bucket_count) >= 0
              AND (length(io_samples_queue.latency_bucket_index) = 1
                   OR arrayMin(arrayPopFront(arrayDifference(io_samples_queue.latency_bucket_index))) > 0))))
        AS io_sample_surely_valid
