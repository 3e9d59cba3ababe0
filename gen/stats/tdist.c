/*
 * tdist.c - Student's t, Welch and paired tests on log per-process means,
 * and the processes-needed estimate (see tdist.h).
 *
 * The t CDF goes through the regularised incomplete beta function,
 * I_x(a, b), evaluated by its continued fraction (modified Lentz), as in
 * every numerical library; the quantile is found by bisection on the CDF.
 */
#include "stats/tdist.h"
#include "base/error.h"

#include <math.h>

#define TDIST_EPS 1e-15
#define TDIST_TINY 1e-300
#define TDIST_MAXIT 500

/* Continued fraction of the incomplete beta function. */
static double betacf(double a, double b, double x)
{
    double qab = a + b, qap = a + 1.0, qam = a - 1.0;
    double c = 1.0, d = 1.0 - qab * x / qap;
    if (fabs(d) < TDIST_TINY)
        d = TDIST_TINY;
    d = 1.0 / d;
    double h = d;
    for (int m = 1; m <= TDIST_MAXIT; m++) {
        int m2 = 2 * m;
        double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        if (fabs(d) < TDIST_TINY)
            d = TDIST_TINY;
        c = 1.0 + aa / c;
        if (fabs(c) < TDIST_TINY)
            c = TDIST_TINY;
        d = 1.0 / d;
        h *= d * c;
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if (fabs(d) < TDIST_TINY)
            d = TDIST_TINY;
        c = 1.0 + aa / c;
        if (fabs(c) < TDIST_TINY)
            c = TDIST_TINY;
        d = 1.0 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1.0) < TDIST_EPS)
            break;
    }
    return h;
}

/* Regularised incomplete beta I_x(a, b). */
static double ibeta(double a, double b, double x)
{
    if (x <= 0.0)
        return 0.0;
    if (x >= 1.0)
        return 1.0;
    double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
    double bt = exp(lbt);
    if (x < (a + 1.0) / (a + b + 2.0))
        return bt * betacf(a, b, x) / a;
    return 1.0 - bt * betacf(b, a, 1.0 - x) / b;
}

double tdist_p_two_sided(double t, double df)
{
    if (isnan(t) || !(df > 0.0))
        return NAN;
    if (isinf(t))
        return 0.0;
    double p = ibeta(df / 2.0, 0.5, df / (df + t * t));
    return p < 0.0 ? 0.0 : p > 1.0 ? 1.0 : p;
}

double tdist_quantile(double q, double df)
{
    if (!(q > 0.0 && q < 1.0) || !(df > 0.0))
        return NAN;
    if (q == 0.5)
        return 0.0;
    /* P(T > x) = p_two_sided(x) / 2 for x > 0; find x with that = tail. */
    double tail = q > 0.5 ? 1.0 - q : q, lo = 0.0, hi = 1.0;
    while (tdist_p_two_sided(hi, df) / 2.0 > tail && hi < 1e12)
        hi *= 2.0;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * (1.0 + hi); i++) {
        double mid = (lo + hi) / 2.0;
        if (tdist_p_two_sided(mid, df) / 2.0 > tail)
            lo = mid;
        else
            hi = mid;
    }
    double x = (lo + hi) / 2.0;
    return q > 0.5 ? x : -x;
}

static void mean_var(const double *x, size_t n, double *mean, double *var)
{
    double m = 0.0, s = 0.0;
    for (size_t i = 0; i < n; i++)
        m += x[i];
    m /= (double)n;
    for (size_t i = 0; i < n; i++)
        s += (x[i] - m) * (x[i] - m);
    *mean = m;
    *var = n > 1 ? s / (double)(n - 1) : 0.0;
}

int tdist_test_logs(const double *la, size_t na, const double *lb, size_t nb, int paired, double level,
                    struct tdist_test *out)
{
    *out = (struct tdist_test){0};
    if (na < 2 || nb < 2 || (paired && na != nb) || !(level > 0.0 && level < 1.0))
        return error_set(BG_EUSAGE, "t test: need at least 2 processes per side (paired: equal counts)");
    double ma, va, mb, vb;
    mean_var(la, na, &ma, &va);
    mean_var(lb, nb, &mb, &vb);
    out->paired = paired;
    out->diff = mb - ma;
    out->sd_a = sqrt(va);
    out->sd_b = sqrt(vb);
    if (paired) {
        double md = 0.0, vd = 0.0;
        for (size_t i = 0; i < na; i++)
            md += lb[i] - la[i];
        md /= (double)na;
        for (size_t i = 0; i < na; i++)
            vd += (lb[i] - la[i] - md) * (lb[i] - la[i] - md);
        vd /= (double)(na - 1);
        out->se = sqrt(vd / (double)na);
        out->df = (double)(na - 1);
        out->cv = sqrt(vd / 2.0);
    } else {
        double sa = va / (double)na, sb = vb / (double)nb;
        out->se = sqrt(sa + sb);
        double den = sa * sa / (double)(na - 1) + sb * sb / (double)(nb - 1);
        out->df = den > 0.0 ? (sa + sb) * (sa + sb) / den : (double)(na + nb - 2);
        out->cv = sqrt(((double)(na - 1) * va + (double)(nb - 1) * vb) / (double)(na + nb - 2));
    }
    if (out->se > 0.0) {
        out->t = out->diff / out->se;
        out->p = tdist_p_two_sided(out->t, out->df);
        double tq = tdist_quantile(0.5 + level / 2.0, out->df);
        out->lo = out->diff - tq * out->se;
        out->hi = out->diff + tq * out->se;
    } else {
        out->t = out->diff == 0.0 ? 0.0 : copysign(INFINITY, out->diff);
        out->p = out->diff == 0.0 ? 1.0 : 0.0;
        out->lo = out->hi = out->diff;
    }
    return 0;
}

size_t tdist_processes_needed(double cv, double band, double noise, double effect, double alpha, double power,
                              int paired, size_t max_n)
{
    if (!(cv >= 0.0) || !(effect > band) || !(effect > noise))
        return 0;
    double room_floor = log1p(effect) - log1p(noise), room_band = log1p(effect) - log1p(band);
    for (size_t n = 2; n <= max_n; n++) {
        double df = paired ? (double)(n - 1) : (double)(2 * n - 2);
        double se = cv * sqrt(2.0 / (double)n), tp = tdist_quantile(power, df);
        if (room_floor >= (tdist_quantile(1.0 - alpha / 2.0, df) + tp) * se && room_band >= tp * se)
            return n;
    }
    return 0;
}
