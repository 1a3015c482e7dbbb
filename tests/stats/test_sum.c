/*
 * test_sum.c - the sums of src/analysis/sum.c against counting: random
 * parametric sets (each dimension bounded by affine expressions of the
 * outer ones and the parameters N and M, floor()s, extra constraints and
 * strides among them) and random weights (polynomials, floor()s), summed by
 * oklc_sum_all, evaluated at every N, M in 0..9, and compared with the
 * sum over the points found one by one. A refused sum is allowed (it
 * makes `oklc stats` count another way), a wrong one is not; most sums
 * must be made, or the test proves nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ctx.h>
#include <isl/options.h>
#include <isl/point.h>
#include <isl/polynomial.h>
#include <isl/space.h>
#include <isl/val.h>

#include "analysis/analysis.h"

enum { SETS = 300, MAXD = 3, NV = MAXD + 2, PMAX = 9 };

typedef struct Aff {          /* floor((c . (x0 x1 x2 N M) + k) / div) */
    int c[NV], k, div;
} Aff;

typedef struct Set {
    int d;                    /* dimensions */
    Aff upper[MAXD];          /* x_i < upper[i] (of outer dimensions and parameters) */
    Aff extra[2];             /* extra[j] >= 0 */
    int nextra;
    int even;                 /* a dimension that only takes even values (-1: none) */
    int wc[3], wv[3], we[3], wfloor[3];   /* weight: sum wc * v^we (or floor(v/2)) */
} Set;

static const char *names[NV] = {"x0", "x1", "x2", "N", "M"};

static int rnd(int lo, int hi)
{
    return lo + rand() % (hi - lo + 1);
}

static long long floordiv(long long a, long long b)
{
    return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

static long long aff_at(const Aff *a, const long long *v)
{
    long long s = a->k;
    for (int i = 0; i < NV; i++)
        s += (long long)a->c[i] * v[i];
    return floordiv(s, a->div);
}

static void aff_text(const Aff *a, char *out, size_t n)
{
    int len = snprintf(out, n, "floor((%d", a->k);
    for (int i = 0; i < NV; i++)
        if (a->c[i])
            len += snprintf(out + len, n - (size_t)len, " + %d*%s", a->c[i], names[i]);
    snprintf(out + len, n - (size_t)len, ")/%d)", a->div);
}

/* an affine expression of the variables before `upto` (and N, M): a
 * bound (the one before and the parameters) or any constraint */
static Aff random_aff(int upto, bool bound)
{
    Aff a = {{0}, rnd(bound ? 0 : -4, 4), rnd(1, 3) == 1 ? rnd(2, 4) : 1};
    for (int i = bound ? upto - 1 : 0; i >= 0 && i < upto; i++)
        a.c[i] = rnd(-1, 1);
    a.c[3] = rnd(bound ? 0 : -1, 1);
    a.c[4] = rnd(0, 1);
    return a;
}

static Set random_set(void)
{
    Set s = {.d = rnd(1, MAXD), .nextra = rnd(0, 2), .even = -1};
    if (rnd(1, 8) == 1)
        s.even = rnd(0, s.d - 1);
    for (int i = 0; i < s.d; i++)
        s.upper[i] = random_aff(i, true);
    for (int j = 0; j < s.nextra; j++)
        s.extra[j] = random_aff(s.d, false);
    for (int t = 0; t < 3; t++) {
        s.wc[t] = rnd(-3, 3), s.wv[t] = rnd(0, s.d + 1);
        s.wv[t] = s.wv[t] >= s.d ? 3 + (s.wv[t] - s.d) : s.wv[t];
        s.we[t] = rnd(0, 2), s.wfloor[t] = rnd(1, 6) == 1;
    }
    return s;
}

static long long weight_at(const Set *s, const long long *v)
{
    long long w = 0;
    for (int t = 0; t < 3; t++) {
        long long x = s->wfloor[t] ? floordiv(v[s->wv[t]], 2) : 1;
        for (int e = 0; !s->wfloor[t] && e < s->we[t]; e++)
            x *= v[s->wv[t]];
        w += s->wc[t] * x;
    }
    return w;
}

static bool inside(const Set *s, const long long *v)
{
    for (int i = 0; i < s->d; i++)
        if (v[i] < 0 || v[i] >= aff_at(&s->upper[i], v))
            return false;
    for (int j = 0; j < s->nextra; j++)
        if (aff_at(&s->extra[j], v) < 0)
            return false;
    return s->even < 0 || v[s->even] % 2 == 0;
}

static long long count(const Set *s, long long *v, int i)
{
    if (i == s->d)
        return inside(s, v) ? weight_at(s, v) : 0;
    long long sum = 0;
    for (v[i] = 0; v[i] < aff_at(&s->upper[i], v); v[i]++)
        sum += count(s, v, i + 1);
    return sum;
}

static char *set_text(const Set *s)
{
    static char buf[4096];
    char a[256];
    int len = snprintf(buf, sizeof buf, "[N, M] -> { [");
    for (int i = 0; i < s->d; i++)
        len += snprintf(buf + len, sizeof buf - (size_t)len, "%s%s", i ? ", " : "", names[i]);
    len += snprintf(buf + len, sizeof buf - (size_t)len, "] -> (0");
    for (int t = 0; t < 3; t++) {
        const char *v = names[s->wv[t]];
        if (s->wfloor[t])
            len += snprintf(buf + len, sizeof buf - (size_t)len, " + %d*floor(%s/2)", s->wc[t], v);
        else
            len += snprintf(buf + len, sizeof buf - (size_t)len, " + %d*%s^%d", s->wc[t], v,
                            s->we[t]);
    }
    len += snprintf(buf + len, sizeof buf - (size_t)len, ") : 0 = 0");
    for (int i = 0; i < s->d; i++) {
        aff_text(&s->upper[i], a, sizeof a);
        len += snprintf(buf + len, sizeof buf - (size_t)len, " and 0 <= %s < %s", names[i], a);
    }
    for (int j = 0; j < s->nextra; j++) {
        aff_text(&s->extra[j], a, sizeof a);
        len += snprintf(buf + len, sizeof buf - (size_t)len, " and %s >= 0", a);
    }
    if (s->even >= 0)
        len += snprintf(buf + len, sizeof buf - (size_t)len, " and %s = 2*floor(%s/2)",
                        names[s->even], names[s->even]);
    snprintf(buf + len, sizeof buf - (size_t)len, " }");
    return buf;
}

static long long eval_at(isl_ctx *ctx, isl_pw_qpolynomial *f, long long n, long long m, bool *ok)
{
    isl_space *sp = isl_space_domain(isl_pw_qpolynomial_get_space(f));
    isl_point *pt = isl_point_zero(sp);
    pt = isl_point_set_coordinate_val(pt, isl_dim_param, 0, isl_val_int_from_si(ctx, n));
    pt = isl_point_set_coordinate_val(pt, isl_dim_param, 1, isl_val_int_from_si(ctx, m));
    isl_val *x = isl_pw_qpolynomial_eval(isl_pw_qpolynomial_copy(f), pt);
    *ok = x && isl_val_is_int(x);
    long long r = *ok ? isl_val_get_num_si(x) : 0;
    isl_val_free(x);
    return r;
}

int main(void)
{
    isl_ctx *ctx = isl_ctx_alloc();
    isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
    srand(4321);
    int made = 0, refused = 0, wrong = 0;
    for (int k = 0; k < SETS; k++) {
        Set s = random_set();
        const char *text = set_text(&s);
        isl_pw_qpolynomial *f = isl_pw_qpolynomial_read_from_str(ctx, text);
        if (!f) {
            fprintf(stderr, "FAIL: isl does not read %s\n", text);
            return 1;
        }
        f = oklc_sum_all(f);
        if (!f) {
            refused++;
            continue;
        }
        made++;
        for (long long n = 0; n <= PMAX; n++)
            for (long long m = 0; m <= PMAX; m++) {
                long long v[NV] = {0, 0, 0, n, m};
                long long want = count(&s, v, 0);
                bool ok;
                long long got = eval_at(ctx, f, n, m, &ok);
                if (!ok || got != want) {
                    if (wrong++ < 5)
                        fprintf(stderr, "FAIL: %s at N=%lld M=%lld: %lld, counted %lld\n",
                                text, n, m, got, want);
                }
            }
        isl_pw_qpolynomial_free(f);
    }
    isl_ctx_free(ctx);
    printf("%d sets summed (each at %d parameter values), %d refused, %d wrong values\n", made,
           (PMAX + 1) * (PMAX + 1), refused, wrong);
    return wrong || made < SETS * 2 / 3 ? 1 : 0;
}
