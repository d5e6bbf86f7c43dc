-- scaling_curves: which I/Os in flight Little's law was checked against. CONFIGURED: the step's load (VMs x
-- targets x workers x queue depth), the generator's own setting; REPORTED: the samples' outstanding_ios, which an
-- importer may itself have derived from IOPS x latency (so agreement proves little); empty: not checked.
ALTER TABLE ioscale.scaling_curves
    ADD COLUMN IF NOT EXISTS littles_basis LowCardinality(String) DEFAULT '' AFTER littles_consistent
