package io.ioscale.analytics;

import java.io.Serializable;
import java.util.Locale;
import java.util.TreeSet;

/**
 * Fit of Gunther's Universal Scalability Law to a scaling curve:
 * <pre>
 *   X(N) = lambda N / (1 + sigma (N - 1) + kappa N (N - 1))
 * </pre>
 * lambda is the throughput of one unit of load with no interference, sigma the contention (the serial share:
 * with kappa = 0 this is Amdahl's law, X tends to lambda / sigma), kappa the coherency cost (crosstalk that
 * makes throughput fall past a peak).
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li>sigma &gt;= 0 and kappa &gt;= 0 always (bound-constrained fit; a curve that bends upward gets
 *       sigma = kappa = 0, not negative coefficients). sigma &gt; 1 is allowed: throughput already falls from N = 1.</li>
 *   <li>Least squares on X itself (absolute residuals), so the large-N points that decide the plateau weigh
 *       most. The result minimises the sum of squares over the grid starts below and every LM descent from
 *       them; it never returns a worse fit than the linearisation's or the best grid point's.</li>
 *   <li>No fit (fitted = false, a reason, NaN numbers) for fewer than 3 distinct N, N &lt; 1, a non-finite or
 *       negative value, or all-zero throughput. Never throws for bad data (only for arrays of unequal length).</li>
 *   <li>Deterministic: no random starts.</li>
 * </ul>
 *
 * <h2>Method</h2>
 * Throughput is scaled by its maximum (conditioning), then three kinds of start are refined by
 * Levenberg-Marquardt over (lambda, sigma, kappa) with Marquardt's diagonal damping and the bounds held by an
 * active set (a parameter at 0 whose gradient points below 0 stays at 0) plus projection of each step:
 * <ol>
 *   <li>the standard linearisation: lambda0 = X(N_min) / N_min, then z = lambda0 N / X - 1 =
 *       sigma (N - 1) + kappa N (N - 1) by least squares without intercept, negative coefficients clipped;</li>
 *   <li>the best point of a grid (sigma in {0} and 25 values 10^-4 .. 3; kappa in {0} and 25 values
 *       10^-4 .. 10^2 over N_max^2, i.e. peaks from ~100 N_max down to 0.1 N_max), lambda solved exactly for each
 *       (the model is linear in lambda);</li>
 *   <li>sigma = kappa = 0.</li>
 * </ol>
 * A coefficient whose term moves the denominator at N_max by less than 1e-9 of itself is reported as 0.
 * R^2 = 1 - SSE / SST (SST = 0, a flat curve fitted exactly, gives 1). Peak (dX/dN has the sign of
 * 1 - sigma - kappa N^2): N* = sqrt((1 - sigma) / kappa) for kappa &gt; 0 and sigma &lt; 1 (at least 1);
 * N* = 1 and X(N*) = lambda when sigma &gt;= 1 (flat or falling from the start); N* = +infinity when
 * kappa = 0 and sigma &lt; 1 (no peak: X rises towards the asymptote lambda / sigma, reported as peakX;
 * +infinity when sigma is 0 too, i.e. linear).
 *
 * <h2>Worked example</h2>
 * lambda = 1000, sigma = 0.05, kappa = 0.001 at N = 1, 2, 4, 8, 12, 16, 24, 32, 40, 48 gives X = 1000, 1901,
 * 3442, 5690, 7134, 8040, 8882, 9034, 8869, 8562; the fit returns these parameters to 1e-6 with R^2 = 1, and
 * N* = sqrt(0.95 / 0.001) = 30.8, X(N*) = 9038. With 2 % Gaussian noise (seed 42) it returns lambda = 1021,
 * sigma = 0.056, kappa = 0.00091, R^2 = 0.998, N* = 32.3.
 *
 * @param fitted     whether a fit was made; when false the numbers are NaN and reason says why
 * @param reason     why not fitted, or "ok"
 * @param points     points used
 * @param maxN       largest N among them (to tell a predicted peak inside the tested range from an extrapolation)
 * @param lambda     throughput of N = 1 without contention, in the unit of X
 * @param sigma      contention coefficient, &gt;= 0
 * @param kappa      coherency coefficient, &gt;= 0
 * @param rSquared   coefficient of determination
 * @param peakN      N at which X peaks (see above); +infinity when there is no peak
 * @param peakX      X(peakN), or the asymptote lambda / sigma when there is no peak
 * @param iterations LM iterations over every start (for diagnostics)
 */
public record UslFit(boolean fitted, String reason, int points, double maxN, double lambda, double sigma, double kappa,
                     double rSquared, double peakN, double peakX, int iterations) implements Serializable {

    private static final int MAX_ITERATIONS = 500;
    private static final int GRID_STEPS = 25;
    private static final double NEGLIGIBLE = 1e-9;

    /** X(N) under this fit; NaN when not fitted. */
    public double predict(double n) {
        if (!fitted) {
            return Double.NaN;
        }
        return model(lambda, sigma, kappa, n);
    }

    /** A finite peak beyond the largest N tested (a prediction, not an observation). */
    public boolean peakExtrapolated() {
        return fitted && Double.isFinite(peakN) && peakN > maxN;
    }

    @Override
    public String toString() {
        if (!fitted) {
            return "USL not fitted: " + reason;
        }
        return String.format(Locale.ROOT, "USL lambda=%.6g sigma=%.6g kappa=%.6g R^2=%.6f N*=%.4g X(N*)=%.6g",
                lambda, sigma, kappa, rSquared, peakN, peakX);
    }

    static double model(double lambda, double sigma, double kappa, double n) {
        return lambda * n / (1 + sigma * (n - 1) + kappa * n * (n - 1));
    }

    private static UslFit none(String reason, int points) {
        return new UslFit(false, reason, points, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                Double.NaN, Double.NaN, 0);
    }

    /**
     * Fits (n[i], x[i]).
     *
     * @throws IllegalArgumentException only when the arrays differ in length
     */
    public static UslFit fit(double[] n, double[] x) {
        if (n.length != x.length) {
            throw new IllegalArgumentException("N and X differ in length (" + n.length + " != " + x.length + ")");
        }
        int m = n.length;
        TreeSet<Double> distinct = new TreeSet<>();
        double xMax = 0;
        double nMax = 0;
        for (int i = 0; i < m; i++) {
            if (!Double.isFinite(n[i]) || !Double.isFinite(x[i])) {
                return none("point " + i + " is not finite (N=" + n[i] + ", X=" + x[i] + ")", m);
            }
            if (n[i] < 1) {
                return none("point " + i + " has N=" + n[i] + " < 1 (USL load starts at 1)", m);
            }
            if (x[i] < 0) {
                return none("point " + i + " has negative X=" + x[i], m);
            }
            distinct.add(n[i]);
            xMax = Math.max(xMax, x[i]);
            nMax = Math.max(nMax, n[i]);
        }
        if (distinct.size() < 3) {
            return none("need at least 3 distinct N, got " + distinct.size(), m);
        }
        if (xMax == 0) {
            return none("all throughput is zero", m);
        }
        double[] y = new double[m];
        for (int i = 0; i < m; i++) {
            y[i] = x[i] / xMax;
        }

        int[] iterations = {0};
        double[] best = null;
        double bestSse = Double.POSITIVE_INFINITY;
        for (double[] start : new double[][] {linearisation(n, y), grid(n, y, nMax), {0, 0}}) {
            double[] p = {lambdaStar(n, y, start[0], start[1]), start[0], start[1]};
            double[] refined = levenbergMarquardt(n, y, p, iterations);
            double sse = sse(n, y, refined);
            if (sse < bestSse) {
                bestSse = sse;
                best = refined;
            }
        }
        double lambda = best[0] * xMax;
        double sigma = best[1];
        double kappa = best[2];
        // A coefficient whose term changes the denominator at N_max by under 1e-9 is numerically 0: report 0,
        // so an Amdahl curve does not get a "peak" at N = 10^9 from round-off.
        double dMax = 1 + sigma * (nMax - 1) + kappa * nMax * (nMax - 1);
        if (kappa * nMax * (nMax - 1) < NEGLIGIBLE * dMax) {
            kappa = 0;
        }
        if (sigma * (nMax - 1) < NEGLIGIBLE * dMax) {
            sigma = 0;
        }

        double mean = 0;
        for (double v : x) {
            mean += v;
        }
        mean /= m;
        double sst = 0;
        double sseX = 0;
        for (int i = 0; i < m; i++) {
            sst += (x[i] - mean) * (x[i] - mean);
            double r = x[i] - model(lambda, sigma, kappa, n[i]);
            sseX += r * r;
        }
        double rSquared;
        if (sst > 1e-24 * xMax * xMax * m) {
            rSquared = 1 - sseX / sst;
        } else {
            rSquared = sseX <= 1e-18 * xMax * xMax * m ? 1.0 : 0.0;
        }

        double peakN;
        double peakX;
        if (sigma >= 1) { // dX/dN = lambda (1 - sigma - kappa N^2) / D^2 <= 0: flat or falling from N = 1
            peakN = 1.0;
            peakX = lambda;
        } else if (kappa > 0) {
            peakN = Math.max(1.0, Math.sqrt((1 - sigma) / kappa));
            peakX = model(lambda, sigma, kappa, peakN);
        } else { // Amdahl (or linear): rises for ever towards lambda / sigma
            peakN = Double.POSITIVE_INFINITY;
            peakX = sigma > 0 ? lambda / sigma : Double.POSITIVE_INFINITY;
        }
        return new UslFit(true, "ok", m, nMax, lambda, sigma, kappa, rSquared, peakN, peakX, iterations[0]);
    }

    // ------------------------------------------------------------------------------------------ starts

    /** lambda0 = y(N_min) / N_min; z = lambda0 N / y - 1 regressed on (N - 1, N (N - 1)), clipped to >= 0. */
    private static double[] linearisation(double[] n, double[] y) {
        int first = 0;
        for (int i = 1; i < n.length; i++) {
            if (n[i] < n[first] || (n[i] == n[first] && y[i] > y[first])) {
                first = i;
            }
        }
        double lambda0 = y[first] / n[first];
        if (!(lambda0 > 0)) {
            return new double[] {0, 0};
        }
        double saa = 0;
        double sab = 0;
        double sbb = 0;
        double saz = 0;
        double sbz = 0;
        for (int i = 0; i < n.length; i++) {
            if (y[i] <= 0) {
                continue;
            }
            double a = n[i] - 1;
            double b = n[i] * (n[i] - 1);
            double z = lambda0 * n[i] / y[i] - 1;
            saa += a * a;
            sab += a * b;
            sbb += b * b;
            saz += a * z;
            sbz += b * z;
        }
        double det = saa * sbb - sab * sab;
        double sigma;
        double kappa;
        if (Math.abs(det) > 1e-12 * saa * sbb && saa > 0) {
            sigma = (saz * sbb - sbz * sab) / det;
            kappa = (saa * sbz - sab * saz) / det;
        } else {
            sigma = saa > 0 ? saz / saa : 0;
            kappa = 0;
        }
        if (sigma < 0 || kappa < 0) { // refit the remaining coefficient alone with the other at its bound
            if (kappa < 0) {
                kappa = 0;
                sigma = saa > 0 ? Math.max(0, saz / saa) : 0;
            } else {
                sigma = 0;
                kappa = sbb > 0 ? Math.max(0, sbz / sbb) : 0;
            }
        }
        return new double[] {finiteOr(sigma, 0), finiteOr(kappa, 0)};
    }

    private static double[] grid(double[] n, double[] y, double nMax) {
        double[] sigmas = new double[GRID_STEPS + 1];
        double[] kappas = new double[GRID_STEPS + 1];
        double logSigmaLo = -4;
        double logSigmaHi = Math.log10(3);
        for (int k = 0; k < GRID_STEPS; k++) {
            double t = k / (double) (GRID_STEPS - 1);
            sigmas[k + 1] = Math.pow(10, logSigmaLo + t * (logSigmaHi - logSigmaLo));
            kappas[k + 1] = Math.pow(10, -4 + t * 6) / (nMax * nMax);
        }
        double bestSse = Double.POSITIVE_INFINITY;
        double[] best = {0, 0};
        for (double s : sigmas) {
            for (double k : kappas) {
                double l = lambdaStar(n, y, s, k);
                double e = sse(n, y, new double[] {l, s, k});
                if (e < bestSse) {
                    bestSse = e;
                    best = new double[] {s, k};
                }
            }
        }
        return best;
    }

    /** The least-squares lambda for fixed sigma, kappa (the model is linear in lambda). */
    private static double lambdaStar(double[] n, double[] y, double sigma, double kappa) {
        double gy = 0;
        double gg = 0;
        for (int i = 0; i < n.length; i++) {
            double g = model(1, sigma, kappa, n[i]);
            gy += g * y[i];
            gg += g * g;
        }
        return gg > 0 ? Math.max(0, gy / gg) : 0;
    }

    private static double sse(double[] n, double[] y, double[] p) {
        double s = 0;
        for (int i = 0; i < n.length; i++) {
            double r = y[i] - model(p[0], p[1], p[2], n[i]);
            s += r * r;
        }
        return s;
    }

    // ------------------------------------------------------------------------------------------ LM

    private static double[] levenbergMarquardt(double[] n, double[] y, double[] start, int[] iterations) {
        double[] p = start.clone();
        double current = sse(n, y, p);
        double mu = 1e-3;
        int m = n.length;
        for (int iter = 0; iter < MAX_ITERATIONS && current > 1e-30; iter++) {
            iterations[0]++;
            double[][] a = new double[3][3];
            double[] g = new double[3];
            for (int i = 0; i < m; i++) {
                double ni = n[i];
                double d = 1 + p[1] * (ni - 1) + p[2] * ni * (ni - 1);
                double f = p[0] * ni / d;
                double[] j = {ni / d, -p[0] * ni * (ni - 1) / (d * d), -p[0] * ni * ni * (ni - 1) / (d * d)};
                double r = y[i] - f;
                for (int u = 0; u < 3; u++) {
                    g[u] += j[u] * r;
                    for (int v = 0; v < 3; v++) {
                        a[u][v] += j[u] * j[v];
                    }
                }
            }
            // Active set: a parameter at its bound 0 whose descent direction points below 0 stays fixed.
            boolean[] free = new boolean[3];
            int k = 0;
            for (int u = 0; u < 3; u++) {
                free[u] = p[u] > 0 || g[u] > 0;
                if (free[u]) {
                    k++;
                }
            }
            if (k == 0) {
                break; // a corner where every direction goes up: a minimum on the bounds
            }
            boolean accepted = false;
            while (!accepted && mu < 1e16) {
                double[] delta = solveDamped(a, g, free, mu);
                if (delta == null) {
                    mu *= 4;
                    continue;
                }
                double[] trial = new double[3];
                double step = 0;
                for (int u = 0; u < 3; u++) {
                    trial[u] = Math.max(0, p[u] + delta[u]);
                    step = Math.max(step, Math.abs(trial[u] - p[u]) / (Math.abs(p[u]) + 1e-12));
                }
                double trialSse = sse(n, y, trial);
                if (trialSse < current) {
                    double improvement = (current - trialSse) / current;
                    p = trial;
                    current = trialSse;
                    mu = Math.max(mu / 3, 1e-15);
                    accepted = true;
                    if (improvement < 1e-15 || step < 1e-13) {
                        return p;
                    }
                } else {
                    if (step < 1e-13) {
                        return p; // steps have shrunk to nothing: converged
                    }
                    mu *= 4;
                }
            }
            if (!accepted) {
                break;
            }
        }
        return p;
    }

    /** Solves (A_ff + mu diag(A_ff)) delta_f = g_f on the free parameters; null when singular. */
    private static double[] solveDamped(double[][] a, double[] g, boolean[] free, double mu) {
        int[] idx = new int[3];
        int k = 0;
        double maxDiag = 0;
        for (int u = 0; u < 3; u++) {
            if (free[u]) {
                idx[k++] = u;
                maxDiag = Math.max(maxDiag, a[u][u]);
            }
        }
        double[][] mat = new double[k][k + 1];
        for (int r = 0; r < k; r++) {
            for (int c = 0; c < k; c++) {
                mat[r][c] = a[idx[r]][idx[c]];
            }
            // Marquardt's scaling, with a floor so a parameter with no gradient yet still gets damped.
            mat[r][r] += mu * Math.max(a[idx[r]][idx[r]], 1e-12 * maxDiag + 1e-300);
            mat[r][k] = g[idx[r]];
        }
        for (int col = 0; col < k; col++) { // Gaussian elimination, partial pivoting
            int pivot = col;
            for (int r = col + 1; r < k; r++) {
                if (Math.abs(mat[r][col]) > Math.abs(mat[pivot][col])) {
                    pivot = r;
                }
            }
            if (!(Math.abs(mat[pivot][col]) > 0)) {
                return null;
            }
            double[] tmp = mat[col];
            mat[col] = mat[pivot];
            mat[pivot] = tmp;
            for (int r = col + 1; r < k; r++) {
                double factor = mat[r][col] / mat[col][col];
                for (int c = col; c <= k; c++) {
                    mat[r][c] -= factor * mat[col][c];
                }
            }
        }
        double[] sol = new double[k];
        for (int r = k - 1; r >= 0; r--) {
            double s = mat[r][k];
            for (int c = r + 1; c < k; c++) {
                s -= mat[r][c] * sol[c];
            }
            sol[r] = s / mat[r][r];
        }
        double[] delta = new double[3];
        for (int r = 0; r < k; r++) {
            if (!Double.isFinite(sol[r])) {
                return null;
            }
            delta[idx[r]] = sol[r];
        }
        return delta;
    }

    private static double finiteOr(double v, double fallback) {
        return Double.isFinite(v) ? v : fallback;
    }
}
