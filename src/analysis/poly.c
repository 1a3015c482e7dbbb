/*
 * poly.c - numbers that may be polynomials: what `oklc stats` counts in a
 * kernel's parameters. Coefficients are exact fractions of 64-bit
 * integers (an overflow is flagged, never wrapped); the variables are the
 * kernel's parameters, the counters of loops being summed, and quotients
 * the formulas keep whole (stats.c names them). A number with no variable
 * is kept inline, so counting with every parameter given allocates
 * nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

static int64_t gcd(int64_t a, int64_t b)
{
    a = a < 0 ? -a : a, b = b < 0 ? -b : b;
    while (b) {
        int64_t t = a % b;
        a = b, b = t;
    }
    return a ? a : 1;
}

/* num/den in lowest terms, den > 0; false on overflow */
static bool fraction(int64_t *num, int64_t *den)
{
    if (*den == 0 || *num == INT64_MIN || *den == INT64_MIN)
        return false;
    if (*den < 0)
        *num = -*num, *den = -*den;
    int64_t g = gcd(*num, *den);
    *num /= g, *den /= g;
    return true;
}

static bool frac_add(int64_t an, int64_t ad, int64_t bn, int64_t bd, int64_t *n, int64_t *d)
{
    int64_t g = gcd(ad, bd), x, y, z;
    if (__builtin_mul_overflow(an, bd / g, &x) || __builtin_mul_overflow(bn, ad / g, &y) ||
        __builtin_add_overflow(x, y, n) || __builtin_mul_overflow(ad / g, bd, &z))
        return false;
    *d = z;
    return fraction(n, d);
}

static bool frac_mul(int64_t an, int64_t ad, int64_t bn, int64_t bd, int64_t *n, int64_t *d)
{
    int64_t g1 = gcd(an, bd), g2 = gcd(bn, ad);
    if (__builtin_mul_overflow(an / g1, bn / g2, n) ||
        __builtin_mul_overflow(ad / g2, bd / g1, d))
        return false;
    return fraction(n, d);
}

/* ---- terms ---------------------------------------------------------------------------- */

static void *palloc(Polys *P, size_t n);

static int mono_cmp(const Term *a, const Term *b)
{
    for (int i = 0; i < a->nv && i < b->nv; i++) {
        if (a->var[i] != b->var[i])
            return a->var[i] < b->var[i] ? -1 : 1;
        if (a->exp[i] != b->exp[i])
            return a->exp[i] < b->exp[i] ? -1 : 1;
    }
    return a->nv < b->nv ? -1 : a->nv > b->nv;
}

static int term_order(const void *x, const void *y)
{
    return mono_cmp(x, y);
}

/* The terms sorted, like terms added, zeros dropped: inline when constant. */
static Num normal(Polys *P, Term *t, size_t n)
{
    qsort(t, n, sizeof *t, term_order);
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        if (out && !mono_cmp(&t[out - 1], &t[i])) {
            Term *o = &t[out - 1];
            if (!frac_add(o->num, o->den, t[i].num, t[i].den, &o->num, &o->den))
                P->overflow = true;
        } else {
            t[out++] = t[i];
        }
    }
    size_t kept = 0;
    for (size_t i = 0; i < out; i++)
        if (t[i].num)
            t[kept++] = t[i];
    if (!kept)
        return (Num){NULL, 0};
    if (kept == 1 && !t[0].nv && t[0].den == 1)
        return (Num){NULL, t[0].num};
    Poly *p = palloc(P, sizeof *p + kept * sizeof(Term));
    p->n = kept;
    memcpy(p->t, t, kept * sizeof(Term));
    return (Num){p, 0};
}

/* The terms of a (a constant one when inline), in a scratch array. */
static size_t terms(const Num *a, const Term **out, Term *one)
{
    if (a->p) {
        *out = a->p->t;
        return a->p->n;
    }
    *one = (Term){a->k, 1, 0, {0}, {0}};
    *out = one;
    return a->k != 0;
}

/* ---- memory: chunks a run takes back (oklc_poly_release) ---------------------------------- */

enum { CHUNK = 1 << 20 };

static void *palloc(Polys *P, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (n > CHUNK)
        return oklc_arena_alloc(P->arena, n);       /* never taken back */
    if (!P->nchunks || P->used + n > CHUNK) {
        if (P->nchunks && P->cur + 1 < P->nchunks) {
            P->cur++;
        } else {
            P->chunks = oklc_arena_append(P->arena, P->chunks, P->nchunks, sizeof(char *));
            P->chunks[P->nchunks] = oklc_arena_alloc(P->arena, CHUNK);
            P->cur = P->nchunks++;
        }
        P->used = 0;
    }
    void *p = P->chunks[P->cur] + P->used;
    P->used += n;
    return p;
}

PolyMark oklc_poly_mark(const Polys *P)
{
    return (PolyMark){P->cur, P->nchunks ? P->used : 0};
}

bool oklc_poly_after(const Polys *P, PolyMark m, const Poly *p)
{
    const char *x = (const char *)p;
    for (size_t i = m.chunk; p && P->nchunks && i <= P->cur; i++) {
        const char *lo = P->chunks[i] + (i == m.chunk ? m.used : 0);
        if (x >= lo && x < P->chunks[i] + CHUNK)
            return true;
    }
    return false;
}

void oklc_poly_release(Polys *P, PolyMark m)
{
    if (P->nchunks)
        P->cur = m.chunk, P->used = m.used;
}

static Term *scratch(Polys *P, size_t n)
{
    return palloc(P, (n ? n : 1) * sizeof(Term));
}

/* ---- arithmetic ------------------------------------------------------------------------- */

Num oklc_num_var(Polys *P, int v)
{
    Term t = {1, 1, 1, {(uint16_t)v}, {1}};
    return normal(P, &t, 1);
}

/* *v, or 0 with the overflow flagged (v is read after the check that sets it) */
static Num inline_num(Polys *P, bool overflow, const int64_t *v)
{
    if (overflow)
        P->overflow = true;
    return (Num){NULL, overflow ? 0 : *v};
}

bool oklc_num_const(Num a, int64_t *k)
{
    if (a.p)
        return false;
    *k = a.k;
    return true;
}

Num oklc_num_add(Polys *P, Num a, Num b)
{
    int64_t s;
    if (!a.p && !b.p)
        return inline_num(P, __builtin_add_overflow(a.k, b.k, &s), &s);
    const Term *ta, *tb;
    Term oa, ob;
    size_t na = terms(&a, &ta, &oa), nb = terms(&b, &tb, &ob);
    Term *t = scratch(P, na + nb);
    memcpy(t, ta, na * sizeof *t);
    memcpy(t + na, tb, nb * sizeof *t);
    return normal(P, t, na + nb);
}

Num oklc_num_scale(Polys *P, Num a, int64_t num, int64_t den)
{
    int64_t s;
    if (!a.p && den == 1)
        return inline_num(P, __builtin_mul_overflow(a.k, num, &s), &s);
    const Term *ta;
    Term oa;
    size_t na = terms(&a, &ta, &oa);
    Term *t = scratch(P, na);
    for (size_t i = 0; i < na; i++) {
        t[i] = ta[i];
        if (!frac_mul(ta[i].num, ta[i].den, num, den, &t[i].num, &t[i].den))
            P->overflow = true;
    }
    return normal(P, t, na);
}

Num oklc_num_sub(Polys *P, Num a, Num b)
{
    return oklc_num_add(P, a, oklc_num_scale(P, b, -1, 1));
}

static bool mono_mul(const Term *a, const Term *b, Term *out)
{
    int i = 0, j = 0, n = 0;
    while (i < a->nv || j < b->nv) {
        if (n == POLY_MAXV)
            return false;
        if (j >= b->nv || (i < a->nv && a->var[i] < b->var[j]))
            out->var[n] = a->var[i], out->exp[n++] = a->exp[i++];
        else if (i >= a->nv || b->var[j] < a->var[i])
            out->var[n] = b->var[j], out->exp[n++] = b->exp[j++];
        else {
            if (a->exp[i] + b->exp[j] > 60)
                return false;
            out->var[n] = a->var[i], out->exp[n++] = (uint8_t)(a->exp[i++] + b->exp[j++]);
        }
    }
    out->nv = (uint8_t)n;
    return true;
}

Num oklc_num_mul(Polys *P, Num a, Num b)
{
    int64_t s;
    if (!a.p && !b.p)
        return inline_num(P, __builtin_mul_overflow(a.k, b.k, &s), &s);
    const Term *ta, *tb;
    Term oa, ob;
    size_t na = terms(&a, &ta, &oa), nb = terms(&b, &tb, &ob);
    Term *t = scratch(P, na * nb);
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++) {
            Term *o = &t[i * nb + j];
            if (!mono_mul(&ta[i], &tb[j], o) ||
                !frac_mul(ta[i].num, ta[i].den, tb[j].num, tb[j].den, &o->num, &o->den))
                P->overflow = true;
        }
    return normal(P, t, na * nb);
}

bool oklc_num_uses(Num a, int v)
{
    for (size_t i = 0; a.p && i < a.p->n; i++)
        for (int j = 0; j < a.p->t[i].nv; j++)
            if (a.p->t[i].var[j] == v)
                return true;
    return false;
}

/* a with variable v taken to the power e out of each term: the terms of v^e */
static Num coefficient(Polys *P, Num a, int v, int e)
{
    if (!a.p)
        return e ? (Num){NULL, 0} : a;
    Term *t = scratch(P, a.p->n);
    size_t n = 0;
    for (size_t i = 0; i < a.p->n; i++) {
        Term x = a.p->t[i];
        int at = -1;
        for (int j = 0; j < x.nv; j++)
            if (x.var[j] == v)
                at = j;
        if ((at < 0 ? 0 : x.exp[at]) != e)
            continue;
        if (at >= 0) {
            memmove(&x.var[at], &x.var[at + 1], (size_t)(x.nv - at - 1) * sizeof x.var[0]);
            memmove(&x.exp[at], &x.exp[at + 1], (size_t)(x.nv - at - 1));
            x.nv--;
        }
        t[n++] = x;
    }
    return normal(P, t, n);
}

static int degree(Num a, int v)
{
    int d = 0;
    for (size_t i = 0; a.p && i < a.p->n; i++)
        for (int j = 0; j < a.p->t[i].nv; j++)
            if (a.p->t[i].var[j] == v && a.p->t[i].exp[j] > d)
                d = a.p->t[i].exp[j];
    return d;
}

static Num power(Polys *P, Num a, int e)
{
    Num r = {NULL, 1};
    for (int i = 0; i < e; i++)
        r = oklc_num_mul(P, r, a);
    return r;
}

Num oklc_num_subst(Polys *P, Num a, int v, Num value)
{
    Num r = {NULL, 0};
    for (int e = degree(a, v); e >= 0; e--)
        r = oklc_num_add(P, r, oklc_num_mul(P, coefficient(P, a, v, e), power(P, value, e)));
    return r;
}

/* Faulhaber: the sum of m^e for m = 0 .. n-1 is
 * 1/(e+1) * sum over j <= e of C(e+1, j) B_j n^(e+1-j), with B_1 = -1/2. */
enum { MAX_DEGREE = 8 };

Num oklc_num_sum(Polys *P, Num a, int v, Num n)
{
    static const int64_t bern[MAX_DEGREE + 1][2] = {{1, 1},  {-1, 2}, {1, 6},  {0, 1}, {-1, 30},
                                                    {0, 1},  {1, 42}, {0, 1},  {-1, 30}};
    int d = degree(a, v);
    if (d > MAX_DEGREE) {
        P->overflow = true;
        return (Num){NULL, 0};
    }
    Num r = {NULL, 0};
    for (int e = 0; e <= d; e++) {
        Num c = coefficient(P, a, v, e), s = {NULL, 0};
        int64_t binom = 1;         /* C(e+1, j) */
        for (int j = 0; j <= e; j++) {
            if (bern[j][0]) {
                Num t = oklc_num_scale(P, power(P, n, e + 1 - j), binom * bern[j][0],
                                       bern[j][1] * (e + 1));
                s = oklc_num_add(P, s, t);
            }
            binom = binom * (e + 1 - j) / (j + 1);
        }
        r = oklc_num_add(P, r, oklc_num_mul(P, c, s));
    }
    return r;
}

/* ---- text ------------------------------------------------------------------------------- */

void oklc_num_print(Num a, Buf *b, const char *(*name)(void *ctx, int v), void *ctx)
{
    if (!a.p) {
        oklc_buf_printf(b, "%lld", (long long)a.k);
        return;
    }
    size_t n = a.p->n;
    for (size_t k = 0; k < n; k++) {       /* the constant (sorted first) last */
        const Term *t = &a.p->t[n - 1 - k];
        int64_t m = t->num < 0 ? -t->num : t->num;
        oklc_buf_printf(b, "%s", !k ? (t->num < 0 ? "-" : "") : (t->num < 0 ? " - " : " + "));
        if (m != 1 || !t->nv)
            oklc_buf_printf(b, "%lld", (long long)m);
        for (int j = 0; j < t->nv; j++) {
            oklc_buf_printf(b, "%s%s", j || m != 1 ? "*" : "", name(ctx, t->var[j]));
            if (t->exp[j] > 1)
                oklc_buf_printf(b, "^%d", t->exp[j]);
        }
        if (t->den != 1)
            oklc_buf_printf(b, "/%lld", (long long)t->den);
    }
}
