package io.ioscale.analytics;

import java.io.Serializable;
import java.util.Locale;
import java.util.TreeSet;
import org.apache.commons.math3.exception.MathIllegalStateException;
import org.apache.commons.math3.fitting.leastsquares.LeastSquaresBuilder;
import org.apache.commons.math3.fitting.leastsquares.LeastSquaresOptimizer;
import org.apache.commons.math3.fitting.leastsquares.LeastSquaresProblem;
import org.apache.commons.math3.fitting.leastsquares.LevenbergMarquardtOptimizer;
import org.apache.commons.math3.fitting.leastsquares.MultivariateJacobianFunction;
import org.apache.commons.math3.fitting.leastsquares.ParameterValidator;
import org.apache.commons.math3.linear.Array2DRowRealMatrix;
import org.apache.commons.math3.linear.ArrayRealVector;
import org.apache.commons.math3.linear.RealVector;
import org.apache.commons.math3.util.Pair;

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
 *       most. The result is the lowest sum of squares over the four faces of the bounds below.</li>
 *   <li>No fit (fitted = false, a reason, NaN numbers) for fewer than 3 distinct N, N &lt; 1, a non-finite or
 *       negative value, all-zero throughput, or no convergence on any face (seen only with N past 10^150,
 *       where the Jacobian overflows). Never throws for bad data (only for arrays of unequal length).</li>
 *   <li>Deterministic: no random starts.</li>
 * </ul>
 *
 * <h2>Method</h2>
 * Throughput is scaled by its maximum (conditioning). Commons Math's Levenberg-Marquardt (MINPACK's lmder)
 * minimises the squares on each face of the bounds: (lambda, sigma, kappa) all free; kappa = 0; sigma = 0;
 * sigma = kappa = 0. Each starts from lambda0 = X(N_min) / N_min with the free coefficients at 0, and the
 * lowest sum of squares wins.
 * <ul>
 *   <li>A {@link ParameterValidator} projects every trial point onto lambda &gt; 0, sigma, kappa &gt;= 0, and the
 *       optimizer carries on from the projected point: iterates never leave the box (the denominator stays
 *       &gt;= 1, no pole), and a coefficient pushed against its bound sits at exactly 0. Not a reparametrisation:
 *       with sigma = s^2 the gradient vanishes at s = 0, so a fit creeps towards the bound without reaching it
 *       and a start at 0 cannot leave it; sigma = exp(t) cannot reach 0 at all.</li>
 *   <li>The faces: LM's step ignores the bounds, so once one is active the projected steps stall before the
 *       other coefficients reach their best values. On the face where that coefficient is fixed at 0 the best
 *       point is interior and LM converges. Two bounds make four faces; trying each is the active-set search,
 *       done exhaustively.</li>
 * </ul>
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

    private static final int MAX_EVALUATIONS = 1000;
    private static final double NEGLIGIBLE = 1e-9;
    /** lambda's floor in units of max X: at lambda = 0 the model and the other two columns vanish. */
    private static final double MIN_LAMBDA = 1e-12;

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
        int first = 0;
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
            if (n[i] < n[first] || (n[i] == n[first] && x[i] > x[first])) {
                first = i;
            }
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

        // From lambda0 with the free coefficients at 0 (a straight line through the first point) on every face.
        double lambda0 = Math.max(MIN_LAMBDA, y[first] / n[first]);
        int iterations = 0;
        double[] best = null;
        double bestCost = Double.POSITIVE_INFINITY;
        for (boolean[] face : FACES) {
            try {
                LeastSquaresOptimizer.Optimum o = LM.optimize(problem(n, y, face[0], face[1], lambda0));
                iterations += o.getIterations();
                if (o.getCost() < bestCost) {
                    bestCost = o.getCost();
                    best = coefficients(o.getPoint(), face[0], face[1]);
                }
            } catch (MathIllegalStateException e) {
                // No convergence on this face (evaluation budget, or tolerances below round-off): another decides.
            }
        }
        if (best == null) {
            return none("no convergence on any face", m);
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
        return new UslFit(true, "ok", m, nMax, lambda, sigma, kappa, rSquared, peakN, peakX, iterations);
    }

    /** The faces of the bounds, as (sigma free, kappa free); a coefficient not free is 0. */
    private static final boolean[][] FACES = {{true, true}, {true, false}, {false, true}, {false, false}};

    private static final LeastSquaresOptimizer LM = new LevenbergMarquardtOptimizer();

    /** (lambda, sigma, kappa) from a point over the free coefficients: lambda, then sigma and kappa if free. */
    private static double[] coefficients(RealVector p, boolean fitSigma, boolean fitKappa) {
        double sigma = fitSigma ? p.getEntry(1) : 0;
        double kappa = fitKappa ? p.getEntry(fitSigma ? 2 : 1) : 0;
        return new double[] {p.getEntry(0), sigma, kappa};
    }

    /** Least squares of y over lambda and the free coefficients, from (lambda0, 0, ...), projected on the box. */
    private static LeastSquaresProblem problem(double[] n, double[] y, boolean fitSigma, boolean fitKappa,
                                               double lambda0) {
        int size = 1 + (fitSigma ? 1 : 0) + (fitKappa ? 1 : 0);
        double[] start = new double[size];
        start[0] = lambda0;
        ParameterValidator box = p -> {
            double[] v = p.toArray();
            v[0] = Math.max(MIN_LAMBDA, v[0]);
            for (int i = 1; i < v.length; i++) {
                v[i] = Math.max(0, v[i]);
            }
            return new ArrayRealVector(v, false);
        };
        MultivariateJacobianFunction model = point -> {
            double[] c = coefficients(point, fitSigma, fitKappa);
            double[] value = new double[n.length];
            double[][] jacobian = new double[n.length][size];
            for (int i = 0; i < n.length; i++) {
                double ni = n[i];
                double d = 1 + c[1] * (ni - 1) + c[2] * ni * (ni - 1);
                value[i] = c[0] * ni / d;
                jacobian[i][0] = ni / d;
                int col = 1;
                if (fitSigma) {
                    jacobian[i][col++] = -c[0] * ni * (ni - 1) / (d * d);
                }
                if (fitKappa) {
                    jacobian[i][col] = -c[0] * ni * ni * (ni - 1) / (d * d);
                }
            }
            return new Pair<>(new ArrayRealVector(value, false), new Array2DRowRealMatrix(jacobian, false));
        };
        return new LeastSquaresBuilder().model(model).target(y).start(start).parameterValidator(box)
                .maxEvaluations(MAX_EVALUATIONS).maxIterations(MAX_EVALUATIONS).build();
    }
}
