"""Small-sample statistics for the bench, standard library only (no numpy/scipy).

Every function takes plain numbers or lists and returns plain numbers or tuples. The definitions
are the contract in SPEC.md "## analyze"; keep the two in step.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from statistics import NormalDist

_NORMAL = NormalDist()


def z_quantile(p: float) -> float:
    return _NORMAL.inv_cdf(p)


# --- Student t (needed for the small-cluster corrections) -------------------------------------


def _betacf(a: float, b: float, x: float) -> float:
    # Continued fraction of the incomplete beta function (modified Lentz), as in Numerical Recipes.
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    front = math.exp(lbeta)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    if df <= 0:
        raise ValueError(f"degrees of freedom must be > 0, got {df}")
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


def t_quantile(p: float, df: float) -> float:
    """Inverse CDF of Student's t with df degrees of freedom (bisection; exact to ~1e-12)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if df > 1e7:
        return z_quantile(p)
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


# --- Proportions --------------------------------------------------------------------------------


def wilson(successes: float, n: float, confidence: float = 0.95, z: float | None = None) -> tuple[float, float]:
    """Wilson score interval for a proportion; n may be an effective (non-integer) size."""
    if n <= 0:
        raise ValueError("wilson needs n > 0")
    if z is None:
        z = z_quantile(0.5 + confidence / 2.0)
    p = min(1.0, max(0.0, successes / n))
    z2 = z * z
    denom = 1.0 + z2 / n
    center = (p + z2 / (2.0 * n)) / denom
    half = z / denom * math.sqrt(max(0.0, p * (1.0 - p) / n + z2 / (4.0 * n * n)))
    # At p = 0 (or 1) the bound is exactly 0 (or 1); rounding would leave a 1e-17 there.
    lo = 0.0 if p == 0.0 else max(0.0, center - half)
    hi = 1.0 if p == 1.0 else min(1.0, center + half)
    return lo, hi


def clustered_rate(
    per_cluster: list[tuple[int, int]], confidence: float = 0.95
) -> tuple[float, float, float, float]:
    """Cluster-mean proportion with a design-effect Wilson interval.

    per_cluster: (successes, trials) for each cluster (task), trials > 0.
    The estimate is the unweighted mean of the cluster proportions. The interval is Wilson's with
    the effective sample size p(1-p)/v, where v is the between-cluster variance of that mean, and
    Student's t on (clusters - 1) df in place of z (Korn & Graubard 1998). Returns
    (estimate, low, high, n_eff).
    """
    k = len(per_cluster)
    if k == 0:
        raise ValueError("clustered_rate needs at least one cluster")
    rates = [s / n for s, n in per_cluster]
    total = sum(n for _, n in per_cluster)
    # Exact, then rounded once: equal rates from different task mixes must print (and compare) equal.
    p = float(sum((Fraction(s, n) for s, n in per_cluster), Fraction(0)) / k)
    if k == 1:
        # One cluster: nothing to say about variation between clusters; treat runs as independent.
        lo, hi = wilson(per_cluster[0][0], per_cluster[0][1], confidence)
        return p, lo, hi, float(total)
    var_mean = sum((r - p) ** 2 for r in rates) / (k - 1) / k
    if p <= 0.0 or p >= 1.0 or var_mean <= 0.0:
        # No spread to estimate clustering from: assume the worst case, one observation per cluster.
        n_eff = float(k) if (p <= 0.0 or p >= 1.0) else float(total)
    else:
        n_eff = min(float(total), max(1.0, p * (1.0 - p) / var_mean))
    t = t_quantile(0.5 + confidence / 2.0, k - 1)
    lo, hi = wilson(p * n_eff, n_eff, z=t)
    return p, lo, hi, n_eff


# --- Cluster bootstrap --------------------------------------------------------------------------


def quantile(sorted_xs: list[float], q: float) -> float:
    """Linear-interpolation quantile (type 7) of an already sorted list."""
    n = len(sorted_xs)
    if n == 0:
        raise ValueError("quantile of an empty list")
    pos = q * (n - 1)
    i = math.floor(pos)
    if i >= n - 1:
        return sorted_xs[-1]
    frac = pos - i
    return sorted_xs[i] + (sorted_xs[i + 1] - sorted_xs[i]) * frac


def expanded_alpha(k: int, confidence: float = 0.95) -> float:
    """Tail mass for the expanded percentile interval (Hesterberg 2015).

    A plain percentile bootstrap over k clusters behaves like mean +- z * sd * sqrt((k-1)/k): too
    narrow for a dozen tasks. Widening to z' = sqrt(k/(k-1)) * t_{k-1} restores the t interval's
    width while keeping the bootstrap's shape.
    """
    alpha = 1.0 - confidence
    t = t_quantile(1.0 - alpha / 2.0, k - 1)
    z_exp = math.sqrt(k / (k - 1)) * t
    return 2.0 * (1.0 - _NORMAL.cdf(z_exp))


def cluster_bootstrap_mean(
    values: list[float],
    resamples: int = 2000,
    seed: int | str = 0,
    confidence: float = 0.95,
) -> tuple[float, float | None, float | None]:
    """Mean of per-cluster values with an expanded-percentile cluster-bootstrap interval.

    values: one number per cluster (e.g. a task's mean paired difference). Clusters are drawn
    with replacement; each resample's statistic is the mean of the drawn values. Returns
    (estimate, low, high); low/high are None with fewer than 2 clusters.
    """
    k = len(values)
    if k == 0:
        raise ValueError("cluster_bootstrap_mean needs at least one cluster")
    est = math.fsum(values) / k
    if k < 2:
        return est, None, None
    if min(values) == max(values):
        return est, est, est
    rng = random.Random(seed)
    choices = rng.choices
    means = sorted(math.fsum(choices(values, k=k)) / k for _ in range(resamples))
    a = expanded_alpha(k, confidence)
    return est, quantile(means, a / 2.0), quantile(means, 1.0 - a / 2.0)


def t_interval_mean(values: list[float], confidence: float = 0.95) -> tuple[float, float | None, float | None]:
    """Mean with a Student t interval (used by the calibration script as a reference)."""
    k = len(values)
    est = math.fsum(values) / k
    if k < 2:
        return est, None, None
    sd = math.sqrt(math.fsum((v - est) ** 2 for v in values) / (k - 1))
    half = t_quantile(0.5 + confidence / 2.0, k - 1) * sd / math.sqrt(k)
    return est, est - half, est + half


# --- Paired tests -------------------------------------------------------------------------------


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts b and c (binomial, p = 1/2)."""
    if b < 0 or c < 0:
        raise ValueError("discordant counts must be >= 0")
    n = b + c
    if n == 0:
        return 1.0
    m = min(b, c)
    if n <= 1000:
        tail = sum(math.comb(n, i) for i in range(m + 1))
        return min(1.0, 2.0 * tail / 2**n)
    # Large n: sum the binomial tail in log space (exact integers get slow past a few thousand).
    log_half_n = n * math.log(0.5)
    logs = [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + log_half_n for i in range(m + 1)]
    top = max(logs)
    tail = math.exp(top) * math.fsum(math.exp(x - top) for x in logs)  # type: ignore[assignment]
    return min(1.0, 2.0 * tail)


# --- Repetition estimators ------------------------------------------------------------------------


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased P(at least one of k draws solves) from c successes in n runs (Chen et al. 2021)."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass_at_k needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    if n - c < k:
        return 1.0
    prod = 1.0
    for i in range(n - c + 1, n + 1):
        prod *= 1.0 - k / i
    return 1.0 - prod


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Unbiased P(all k draws solve) = C(c, k) / C(n, k) (tau-bench's pass^k)."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass_hat_k needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    if c < k:
        return 0.0
    prod = 1.0
    for i in range(k):
        prod *= (c - i) / (n - i)
    return prod
