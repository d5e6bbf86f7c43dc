"""fio's latency bucket scheme, reproduced from fio's ``stat.h`` / ``stat.c`` (axboe/fio).

fio groups latencies by their most significant bit and keeps the next ``FIO_IO_U_PLAT_BITS = 6`` bits
as the index within the group, so every group has ``FIO_IO_U_PLAT_VAL = 64`` buckets and the relative
error is at most 1/2^7 = 0.78%. Groups 0 and 1 (indexes 0..127) are exact: bucket i holds value i.
From group 2 on, group g covers [2^(g+5), 2^(g+6)) in 64 buckets of width 2^(g-1):

    group  MSB  error_bits  value range           buckets   bucket width
      0    0-5      0       [0, 63]                  64          1
      1     6       0       [64, 127]                64          1
      2     7       1       [128, 255]               64          2
      3     8       2       [256, 511]               64          4
     ...
     28    33      27       [2^33, +inf)             64        2^27   (fio >= 3: nanoseconds)
     18    23      17       [2^23, +inf)             64        2^17   (fio < 3: microseconds)

The array length is ``FIO_IO_U_PLAT_GROUP_NR * 64``: 19 groups (1216 buckets) counting microseconds up to
fio 2.x, 29 groups (1856 buckets) counting nanoseconds since fio 3.0. A bucket's representative value is
fio's own ``plat_idx_to_val``: the index itself in the exact groups, else the middle of the bucket,
``base + (k + 0.5) * 2^error_bits`` (always an integer since error_bits >= 1 there). fio uses this value
for its percentiles and as the key of the ``json+`` ``bins`` maps, and the histogram logs
(``write_hist_log``) hold the raw per-bucket counts, optionally summed over ``2^log_hist_coarseness``
neighbouring buckets.
"""

from __future__ import annotations

FIO_IO_U_PLAT_BITS = 6
FIO_IO_U_PLAT_VAL = 1 << FIO_IO_U_PLAT_BITS
GROUP_NR_USEC = 19  # fio < 3.0: latencies in microseconds
GROUP_NR_NSEC = 29  # fio >= 3.0: latencies in nanoseconds
MAX_COARSENESS = 6  # fio allows log_hist_coarseness 0..6


def plat_idx_to_val(idx: int) -> int:
    """fio's representative value of bucket ``idx`` (stat.c ``plat_idx_to_val``), in fio's unit."""
    if idx < 0:
        raise ValueError(f"negative bucket index {idx}")
    if idx < (FIO_IO_U_PLAT_VAL << 1):
        return idx
    error_bits = (idx >> FIO_IO_U_PLAT_BITS) - 1
    base = 1 << (error_bits + FIO_IO_U_PLAT_BITS)
    k = idx % FIO_IO_U_PLAT_VAL
    # base + (k + 0.5) * 2^error_bits, in integers: error_bits >= 1 here so the half is exact.
    return base + (((2 * k + 1) << error_bits) >> 1)


def plat_val_to_idx(val: int, nr: int = GROUP_NR_NSEC * FIO_IO_U_PLAT_VAL) -> int:
    """fio's bucket index of value ``val`` (stat.c ``plat_val_to_idx``), clamped to the last bucket."""
    if val < 0:
        raise ValueError(f"negative value {val}")
    msb = val.bit_length() - 1 if val else 0
    if msb <= FIO_IO_U_PLAT_BITS:
        return min(val, nr - 1)
    error_bits = msb - FIO_IO_U_PLAT_BITS
    base = (error_bits + 1) << FIO_IO_U_PLAT_BITS
    offset = (FIO_IO_U_PLAT_VAL - 1) & (val >> error_bits)
    return min(base + offset, nr - 1)


def bucket_bounds(idx: int) -> tuple[int, int]:
    """[lower, upper) of the values fio puts in bucket ``idx`` (the last bucket is open-ended in fio)."""
    if idx < (FIO_IO_U_PLAT_VAL << 1):
        return idx, idx + 1
    error_bits = (idx >> FIO_IO_U_PLAT_BITS) - 1
    lower = (1 << (error_bits + FIO_IO_U_PLAT_BITS)) + (idx % FIO_IO_U_PLAT_VAL << error_bits)
    return lower, lower + (1 << error_bits)


def coarse_bin_value(j: int, coarseness: int) -> int:
    """Representative value of coarse histogram-log bin ``j`` (2^coarseness fio buckets summed).

    With coarseness 0 this is exactly ``plat_idx_to_val(j)``; otherwise the midpoint between the
    representative values of the first and last fio bucket it covers.
    """
    if coarseness == 0:
        return plat_idx_to_val(j)
    stride = 1 << coarseness
    first, last = j * stride, j * stride + stride - 1
    return (plat_idx_to_val(first) + plat_idx_to_val(last)) // 2


def hist_log_layout(n_bins: int) -> tuple[int, int] | None:
    """(unit_ns, coarseness) of a histogram-log line with ``n_bins`` counts, or None if unknown.

    1216 >> c bins means microseconds (fio < 3), 1856 >> c nanoseconds (fio >= 3); the two series
    never collide for c in 0..6.
    """
    for c in range(MAX_COARSENESS + 1):
        if n_bins == (GROUP_NR_USEC * FIO_IO_U_PLAT_VAL) >> c:
            return 1000, c
        if n_bins == (GROUP_NR_NSEC * FIO_IO_U_PLAT_VAL) >> c:
            return 1, c
    return None
