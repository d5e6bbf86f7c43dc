"""fio's bucket scheme as reproduced in importers.fio_bins, checked against fio's stat.h table."""

import pytest

from ioscale.importers.fio_bins import (
    GROUP_NR_NSEC,
    GROUP_NR_USEC,
    bucket_bounds,
    coarse_bin_value,
    hist_log_layout,
    plat_idx_to_val,
    plat_val_to_idx,
)


@pytest.mark.parametrize(
    "idx,value",
    [
        (0, 0), (1, 1), (63, 63), (64, 64), (127, 127),     # groups 0 and 1 are exact
        (128, 129),                                          # group 2: width 2, base 128, (0 + 0.5) * 2
        (191, 255),                                          # last of group 2: 128 + 63.5 * 2
        (192, 258),                                          # group 3: width 4, 256 + 0.5 * 4
        (543, 12224),                                        # 8192 + 31.5 * 128
        (1215, 16711680),                                    # last usec bucket: 2^23 + 63.5 * 2^17
        (1855, 17112760320),                                 # last nsec bucket: 2^33 + 63.5 * 2^27
    ],
)
def test_plat_idx_to_val_matches_fio(idx, value):
    assert plat_idx_to_val(idx) == value


@pytest.mark.parametrize("groups", [GROUP_NR_USEC, GROUP_NR_NSEC])
def test_every_bucket_value_maps_back_to_its_bucket(groups):
    nr = groups * 64
    for idx in range(nr):
        v = plat_idx_to_val(idx)
        lo, hi = bucket_bounds(idx)
        assert lo <= v < hi
        assert plat_val_to_idx(v, nr) == idx
        assert plat_val_to_idx(lo, nr) == idx and plat_val_to_idx(hi - 1, nr) == idx
        # fio's error bound: the representative is within 1/128 of any value in the bucket
        assert v - lo <= lo / 128 + 0.5 and hi - 1 - v <= lo / 128 + 0.5


def test_values_beyond_range_clamp_to_last_bucket():
    assert plat_val_to_idx(1 << 40, GROUP_NR_NSEC * 64) == GROUP_NR_NSEC * 64 - 1
    assert plat_val_to_idx(1 << 30, GROUP_NR_USEC * 64) == GROUP_NR_USEC * 64 - 1


def test_hist_log_layouts():
    assert hist_log_layout(1216) == (1000, 0)
    assert hist_log_layout(1856) == (1, 0)
    assert hist_log_layout(304) == (1000, 2)
    assert hist_log_layout(29) == (1, 6)
    assert hist_log_layout(1000) is None


def test_coarse_bin_value_reduces_to_fio_value_and_stays_inside_the_range():
    assert [coarse_bin_value(j, 0) for j in range(300)] == [plat_idx_to_val(j) for j in range(300)]
    for c in range(1, 7):
        stride = 1 << c
        for j in range(1856 >> c):
            v = coarse_bin_value(j, c)
            assert plat_idx_to_val(j * stride) <= v <= plat_idx_to_val(j * stride + stride - 1)


def test_pkb_bin_values_are_shifted_from_fio_by_up_to_one_bucket():
    """PKB's tests/data/fio/hist/bin_vals average bucket i's lower edge with bucket i+1's upper edge
    (fio's tools/hist parser at edge 0 and edge 1; in the exact groups both edges are the index).

    Its values (0.5, 1.5, ..., 126.5, 128.5, 130.0, ...) are what pkb_fio-2.17_hist_expected_read.json is
    keyed by; this pins the relation the fixture test relies on (no PKB data is copied here).
    """
    def pkb(i):
        lo, _ = bucket_bounds(i)
        hi_next = i + 1 if i + 1 < 128 else bucket_bounds(i + 1)[1]
        return (lo + hi_next) / 2

    assert [pkb(i) for i in (0, 1, 126, 127, 128, 129, 543)] == [0.5, 1.5, 126.5, 128.5, 130.0, 132.0, 12288.0]
    for i in range(1215):
        width_next = bucket_bounds(i + 1)[1] - bucket_bounds(i + 1)[0]
        assert 0 < pkb(i) - plat_idx_to_val(i) <= width_next
