"""The queueing model: closed-loop load generators against shared CPUs, adapters, links and devices.

Pure math, no records. What it guarantees
-----------------------------------------
- Closed loop, as Iometer, DISKSPD and fio with a fixed iodepth are: each *class* (one target driven by
  its workers) keeps exactly N = workers x queue depth I/Os in flight. The solution satisfies Little's
  law exactly, N = X * R (throughput X in I/O/s, mean latency R in s), for every class.
- Identical classes are solved once as a *type* with a multiplicity, which keeps 320-VM fleets cheap.
- Shared capacity: a station (CPU, HBA I/O engine, one direction of a link, a device) serves
  ``servers`` I/Os at once and needs ``demand_s`` of its time per I/O. Throughput through it can never
  exceed servers / demand_s: once a station saturates, throughput plateaus there and latency grows
  linearly with the outstanding I/Os (the saturation signature the lab reports show).
- Full duplex is two stations, one per direction; a read moves its payload on the receive side, a write
  on the transmit side, so a 75/25 mix saturates the receive direction first.

How
---
A closed-loop fixed point. Each class type t (identical targets, `multiplicity` of them) has throughput
X_t; each station k has a per-I/O demand D[t,k] (seconds) and c_k servers. Utilisation of the station
instance a class uses, U_k = (classes on that instance x X x D) / c_k, where an instance is shared by all
classes on the host (global) or by `group_size` classes of one type (one VM's vCPUs, one adapter, one
device). Residence time uses Sakasegawa's M/G/c waiting-time approximation, with the station's
burstiness v = (1 + C^2) / 2 (1 = exponential service; batched completions: ~ the batch size)::

    R[t,k] = D[t,k] * (1 + v_k * U_k ** (sqrt(2 (c_k + 1)) - 1) / (c_k (1 - U_k)))
    R_t    = Z_t + sum_k R[t,k],      X_t = N_t / R_t

solved per type by bisection (x R(x) grows with x) in a Gauss-Seidel loop over types. Waiting diverges as
U -> 1, so every station stays below saturation and the bound X <= c / D holds. v shapes the knee: with
v ~ 0 a link is a hard wall, with large v contention sets in early and gains fade gradually -- the
studies show both (the 8 Gbps wire at 128K IOPS, the +40 % / +20 % steps before it). Reads and writes
share a class (one closed loop per target); each direction's latency is its own demands times the same
per-station stretch R/D, so their mix is the class mean exactly.

Worked example: one 8 Gbps FC port (800 MB/s payload per direction), 8 KiB at 75 % reads. Receive
demand per I/O = (0.75 * 8192 + 96) / 800e6 = 7.8 us, so no number of workers pushes more than 128K IOPS
(1,000 MiB/s in total, the Hyper-V study's wire speed); with 4 x 30 outstanding I/Os the model gives
~127.5K at 0.94 ms, and Little's law: 127.5K x 0.94 ms = 120.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

GLOBAL = 0  # group_size value meaning "shared by every class on the host"
UTILIZATION_CAP = 1.0 - 1e-9  # waiting time diverges at 1: the fixed point always lies below


@dataclass(frozen=True)
class ClassType:
    """Identical closed-loop classes (targets): `multiplicity` of them, each with `population` I/Os in flight."""

    name: str
    multiplicity: int
    population: float          # workers x queue depth per target
    read_fraction: float       # share of reads, 0..1
    read_delay_s: float = 0.0  # pure delay per read (fabric, media), not shared
    write_delay_s: float = 0.0


@dataclass(frozen=True)
class Station:
    """A service centre. demands: type name -> (seconds per read, seconds per write)."""

    name: str
    servers: int
    group_size: int = GLOBAL
    demands: dict[str, tuple[float, float]] = field(default_factory=dict)
    variability: float = 1.0   # (1 + C^2) / 2 of the service time: 1 = exponential; > 1 queues build earlier


@dataclass(frozen=True)
class ClassSolution:
    throughput_per_s: float    # I/O per second of one class (reads + writes)
    latency_s: float           # mean over reads and writes; population = throughput x latency
    read_latency_s: float      # mean of reads
    write_latency_s: float
    unloaded_read_latency_s: float   # the same with every queue empty (for the latency spread)
    unloaded_write_latency_s: float


@dataclass(frozen=True)
class Solution:
    classes: dict[str, ClassSolution]
    utilization: dict[str, float]   # station -> busy fraction of its servers (0..1) of the busiest instance
    iterations: int


class ModelError(ValueError):
    pass


def solve(types: list[ClassType], stations: list[Station], *, tolerance: float = 1e-9,
          max_iterations: int = 200) -> Solution:
    """Closed-loop fixed point X_t = N_t / R_t(X) with M/G/c waiting times (see the module docstring)."""
    if not types:
        return Solution({}, {s.name: 0.0 for s in stations}, 0)
    names = [t.name for t in types]
    index = {n: i for i, n in enumerate(names)}
    if len(index) != len(names):
        raise ModelError(f"duplicate class type names: {names}")
    n_t, n_k = len(types), len(stations)
    mult = np.array([t.multiplicity for t in types], dtype=float)
    pop = np.array([t.population for t in types], dtype=float)
    rf = np.array([t.read_fraction for t in types], dtype=float)
    if np.any(pop <= 0) or np.any(mult <= 0):
        raise ModelError("every class type needs population > 0 and multiplicity > 0")
    d_read = np.zeros((n_t, n_k))
    d_write = np.zeros((n_t, n_k))
    for k, st in enumerate(stations):
        if st.servers < 1:
            raise ModelError(f"station {st.name} needs at least one server")
        for tname, (dr, dw) in st.demands.items():
            if tname not in index:
                raise ModelError(f"station {st.name} names unknown class type {tname}")
            d_read[index[tname], k] = dr
            d_write[index[tname], k] = dw
    demand = rf[:, None] * d_read + (1 - rf[:, None]) * d_write
    servers = np.array([s.servers for s in stations], dtype=float)
    # Classes loading one instance of a station: every class of every type (global), or group_size
    # classes of one type (private stations).
    group = np.array([s.group_size for s in stations], dtype=float)
    is_global = group == GLOBAL
    variability = np.array([s.variability for s in stations], dtype=float)
    exponent = np.sqrt(2.0 * (servers + 1.0)) - 1.0            # Sakasegawa's M/G/c approximation
    z_read = np.array([t.read_delay_s for t in types])
    z_write = np.array([t.write_delay_s for t in types])
    z = rf * z_read + (1 - rf) * z_write

    def stretch_for(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        load = x[:, None] * demand                               # busy seconds per second, per class
        busy_global = (mult[:, None] * load).sum(axis=0)
        busy = np.where(is_global[None, :], busy_global[None, :], group[None, :] * load)
        util = np.minimum(busy / servers[None, :], UTILIZATION_CAP)
        wait_factor = variability[None, :] * util ** exponent[None, :] / (1.0 - util) / servers[None, :]
        return 1.0 + wait_factor, util                          # R_k = D_k * stretch_k

    coef = np.where(is_global[None, :], mult[:, None], group[None, :])  # classes per instance

    def excess(t: int, xt: float, x: np.ndarray) -> float:
        x = x.copy()
        x[t] = xt
        stretch, _ = stretch_for(x)
        return xt * (z[t] + float((demand[t] * stretch[t]).sum())) - pop[t]

    # Gauss-Seidel over types: with the others fixed, x_t * R_t(x) grows monotonically with x_t, so the
    # type's throughput is the root of excess() below the saturation bound, found by bisection.
    x = np.zeros(n_t)
    iterations = 0
    for iterations in range(1, max_iterations + 1):
        previous = x.copy()
        for t in range(n_t):
            load = x[:, None] * demand
            busy_all = np.where(is_global, (mult[:, None] * load).sum(axis=0), 0.0)
            others = busy_all - np.where(is_global, mult[t] * load[t], 0.0)
            visited = demand[t] > 0
            room = (servers - others)[visited] / (coef[t] * demand[t])[visited]
            high = float(min(room.min(), pop[t] / z[t] if z[t] > 0 else np.inf)) if visited.any() else pop[t] / z[t]
            low = 0.0
            high = max(high, 0.0)
            for _ in range(100):
                mid = 0.5 * (low + high)
                if excess(t, mid, x) > 0:
                    high = mid
                else:
                    low = mid
                if high - low <= 1e-12 * max(high, 1.0):
                    break
            x[t] = 0.5 * (low + high)
        if n_t == 1 or float(np.max(np.abs(x - previous) / np.maximum(x, 1e-300))) < tolerance:
            break

    stretch, util = stretch_for(x)
    r_read = z_read + (d_read * stretch).sum(axis=1)
    r_write = z_write + (d_write * stretch).sum(axis=1)
    r_mean = rf * r_read + (1 - rf) * r_write
    x = pop / r_mean  # Little's law holds exactly for what is reported
    u_read = z_read + d_read.sum(axis=1)
    u_write = z_write + d_write.sum(axis=1)
    classes = {
        t.name: ClassSolution(float(x[i]), float(r_mean[i]), float(r_read[i]), float(r_write[i]),
                              float(u_read[i]), float(u_write[i]))
        for i, t in enumerate(types)
    }
    utilization = {st.name: float(np.max(np.where(demand[:, k] > 0, util[:, k], 0.0)))
                   for k, st in enumerate(stations)}
    return Solution(classes, utilization, iterations)


# --- latency distribution ----------------------------------------------------------------------------------
# Acklam's rational approximation of the inverse standard normal CDF, vectorised (scipy is not a
# dependency). Without his refinement step the error is < 1e-8 in the centre and ~1.3e-5 (absolute) in
# the tails (tests/unit/simulator/test_model.py checks against statistics.NormalDist): a latency drawn at
# z = 4.3 with sigma 0.3 is off by 4 ppm, far below the histogram's 0.39 % bucket width.
_A = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02,
      -3.066479806614716e+01, 2.506628277459239e+00)
_B = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01,
      -1.328068155288572e+01)
_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549671010388780e+00,
      4.374664141464968e+00, 2.938163982698783e+00)
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00)
_P_LOW = 0.02425


def norm_ppf(u: np.ndarray) -> np.ndarray:
    """Inverse standard normal CDF of u in (0, 1)."""
    u = np.clip(np.asarray(u, dtype=float), 1e-300, 1 - 1e-16)
    out = np.empty_like(u)
    low = u < _P_LOW
    high = u > 1 - _P_LOW
    mid = ~(low | high)
    if mid.any():
        q = u[mid] - 0.5
        r = q * q
        num = (((((_A[0] * r + _A[1]) * r + _A[2]) * r + _A[3]) * r + _A[4]) * r + _A[5]) * q
        den = ((((_B[0] * r + _B[1]) * r + _B[2]) * r + _B[3]) * r + _B[4]) * r + 1
        out[mid] = num / den
    for mask, sign in ((low, 1.0), (high, -1.0)):
        if mask.any():
            p = u[mask] if sign > 0 else 1 - u[mask]
            q = np.sqrt(-2 * np.log(p))
            num = ((((_C[0] * q + _C[1]) * q + _C[2]) * q + _C[3]) * q + _C[4]) * q + _C[5]
            den = (((_D[0] * q + _D[1]) * q + _D[2]) * q + _D[3]) * q + 1
            out[mask] = sign * num / den
    return out


#: Quantile strata of the latency body. Each interval of each source draws one latency per stratum and
#: gives it the stratum's share of the interval's I/Os (a multinomial draw), so a record carries ~20
#: buckets instead of the ~300 a fully resolved lognormal would touch, while merged histograms (a step,
#: a fleet) follow the distribution; the strata are finest in the tails, where p99.9-p99.999 live.
STRATA_EDGES = np.array([0.0, 1e-5, 1e-4, 1e-3, 0.01, 0.03, 0.07, 0.12, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8,
                         0.88, 0.93, 0.97, 0.99, 0.995, 0.999, 0.9999, 0.99999, 1.0])
STRATA_WIDTHS = np.diff(STRATA_EDGES)


@dataclass(frozen=True)
class LatencyShape:
    """How latencies spread around the model's mean.

    body: lognormal with log-sigma `sigma_unloaded` when queues are empty, widening by `sigma_queueing`
    as queueing stretches the latency (R / R_unloaded -> large). stalls: with probability
    `stall_probability` an I/O instead takes a stall: lognormal with median `stall_median_s` x the
    queueing stretch ** `stall_growth` (I/Os queued behind a stall wait too) and log-sigma `stall_sigma`.
    """

    sigma_unloaded: float = 0.25
    sigma_queueing: float = 0.25
    stall_probability: float = 2e-5
    stall_median_s: float = 4e-3
    stall_sigma: float = 0.6
    stall_growth: float = 1.0  # stall median grows as stretch ** stall_growth (queues behind a stall)

    def sigma(self, mean_s: float, unloaded_s: float) -> float:
        stretch = mean_s / unloaded_s if unloaded_s > 0 else 1.0
        return self.sigma_unloaded + self.sigma_queueing * (1.0 - 1.0 / max(stretch, 1.0))

    def stall_median(self, mean_s: float, unloaded_s: float) -> float:
        stretch = mean_s / unloaded_s if unloaded_s > 0 else 1.0
        return self.stall_median_s * max(stretch, 1.0) ** self.stall_growth

    def body_log_mu(self, mean_s: float, unloaded_s: float) -> float:
        """mu of the body lognormal such that the mean over body and stalls equals mean_s."""
        p = self.stall_probability
        stall_mean = self.stall_median(mean_s, unloaded_s) * math.exp(self.stall_sigma ** 2 / 2)
        body_mean = (mean_s - p * stall_mean) / (1 - p)
        body_mean = max(body_mean, mean_s * 0.05)  # stalls never eat the whole mean
        sigma = self.sigma(mean_s, unloaded_s)
        return math.log(body_mean) - sigma * sigma / 2


def bucket_indexes(values_ns: np.ndarray) -> np.ndarray:
    """ioscale.histogram.bucket_index over an int64 array (tests check the two agree value for value).

    bit_length(v) comes from frexp, exact for v < 2^53; values here are < 2^40.
    """
    v = np.asarray(values_ns, dtype=np.int64)
    _, exponent = np.frexp(v.astype(np.float64))  # v = m * 2^exponent, 0.5 <= m < 1: exponent = bit_length
    shift = exponent.astype(np.int64) - 8
    shifted = (shift << 7) + (v >> np.maximum(shift, 0))
    return np.where(shift <= 0, v, shifted)
