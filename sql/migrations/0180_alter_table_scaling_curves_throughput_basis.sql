-- scaling_curves: what the step's throughput counts. IO: its I/O samples (IOPS, MB/s); PORT: a step without I/O
-- samples (a network test such as iperf3), measured by the payload its whole ports moved: mb_per_s is that
-- payload, iops the frames where the samples count them, and the scaling curve and USL fit judge MB/s.
ALTER TABLE ioscale.scaling_curves
    ADD COLUMN IF NOT EXISTS throughput_basis LowCardinality(String) DEFAULT 'IO' AFTER mb_per_s
