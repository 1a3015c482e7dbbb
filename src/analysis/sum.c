/*
 * sum.c - sums of a quasi-polynomial over the integer points of a
 * parametric set, piecewise in the parameters (what barvinok computes for
 * loopy; Debian's isl has the sets and the quasi-polynomials but not the
 * sum). `oklc stats` counts a guarded loop nest with it.
 *
 * The innermost dimension x goes first: for fixed outer values y, the
 * points of a basic set are the integers between its least and greatest x
 * (isl's parametric lexmin/lexmax, piecewise affine in y) -- when they are
 * all of them, which is checked (a stride or a hole refuses the sum). Over
 * that interval a polynomial c(y) x^d sums to c(y) (P_d(hi) - P_d(lo - 1)),
 * P_d Faulhaber's polynomial, which holds for every lo <= hi + 1. A term
 * whose floor() involves x is refused too. Each refusal is NULL: the
 * caller counts another way.
 */
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/constraint.h>
#include <isl/ilp.h>
#include <isl/map.h>
#include <isl/point.h>
#include <isl/polynomial.h>
#include <isl/printer.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>

#include "analysis.h"

enum { MAX_DEGREE = 12 };

/* sum_{x=1}^{n} x^d for d <= max, as quasi-polynomials of n:
 * P_d = ((n+1)^{d+1} - 1 - sum_{k<d} C(d+1,k) P_k) / (d+1). */
static bool faulhaber(isl_qpolynomial *n, int max, isl_qpolynomial **P)
{
    isl_ctx *c = isl_qpolynomial_get_ctx(n);
    isl_space *sp = isl_qpolynomial_get_domain_space(n);
    isl_qpolynomial *n1 = isl_qpolynomial_add(isl_qpolynomial_copy(n),
                                              isl_qpolynomial_one_on_domain(isl_space_copy(sp)));
    bool ok = n1;
    for (int d = 0; d <= max && ok; d++) {
        isl_qpolynomial *s = isl_qpolynomial_sub(isl_qpolynomial_pow(isl_qpolynomial_copy(n1),
                                                                     (unsigned)d + 1),
                                                 isl_qpolynomial_one_on_domain(
                                                     isl_space_copy(sp)));
        long binom = 1;       /* C(d+1, k) */
        for (int k = 0; k < d; k++) {
            isl_qpolynomial *t = isl_qpolynomial_scale_val(isl_qpolynomial_copy(P[k]),
                                                           isl_val_int_from_si(c, binom));
            s = isl_qpolynomial_sub(s, t);
            binom = binom * (d + 1 - k) / (k + 1);
        }
        P[d] = isl_qpolynomial_scale_down_val(s, isl_val_int_from_si(c, d + 1));
        ok = P[d];
    }
    isl_qpolynomial_free(n1);
    isl_space_free(sp);
    return ok;
}

typedef struct Split {
    int                pos;       /* x */
    isl_space         *space;     /* of (y, x) */
    isl_qpolynomial   *by[MAX_DEGREE + 1];   /* c_d(y), over y */
    int                degree;
} Split;

/* floor(e) of a term as a polynomial: where e = e' + k x with k an
 * integer, floor(e') + k x, so that x is a variable of the polynomial
 * (floor((N - 1024*m)/256) is floor(N/256) - 4*m); NULL where x's
 * coefficient is a fraction or e holds a floor() itself. x < 0: as it is. */
static isl_qpolynomial *floor_of(__isl_take isl_aff *e, int x, __isl_keep isl_space *sp)
{
    if (x >= 0 && isl_aff_dim(e, isl_dim_div) != 0) {  /* a floor() in it: x may hide there */
        isl_aff_free(e);
        return NULL;
    }
    isl_val *k = x >= 0 ? isl_aff_get_coefficient_val(e, isl_dim_in, x) : NULL;
    if (!k || isl_val_is_zero(k)) {
        isl_val_free(k);
        return isl_qpolynomial_from_aff(isl_aff_floor(e));
    }
    if (isl_val_is_int(k) != isl_bool_true) {
        isl_val_free(k);
        isl_aff_free(e);
        return NULL;
    }
    e = isl_aff_set_coefficient_si(e, isl_dim_in, x, 0);
    isl_qpolynomial *kx = isl_qpolynomial_scale_val(
        isl_qpolynomial_var_on_domain(isl_space_copy(sp), isl_dim_set, (unsigned)x), k);
    return isl_qpolynomial_add(isl_qpolynomial_from_aff(isl_aff_floor(e)), kx);
}

/* The term t as a polynomial of space sp, set dimension `skip` left out
 * (its power), floor()s of dimension x rewritten (floor_of); NULL when one
 * cannot be. */
static isl_qpolynomial *term_poly(__isl_keep isl_term *t, int skip, int x,
                                  __isl_keep isl_space *sp)
{
    isl_qpolynomial *q = isl_qpolynomial_val_on_domain(isl_space_copy(sp),
                                                       isl_term_get_coefficient_val(t));
    static const enum isl_dim_type types[] = {isl_dim_param, isl_dim_set, isl_dim_div};
    for (int k = 0; k < 3 && q; k++) {
        isl_size n = isl_term_dim(t, types[k]);
        for (isl_size i = 0; i < n && q; i++) {
            isl_size e = isl_term_get_exp(t, types[k], (unsigned)i);
            if (e <= 0 || (types[k] == isl_dim_set && i == skip))
                continue;
            isl_qpolynomial *v = types[k] == isl_dim_div
                ? floor_of(isl_term_get_div(t, (unsigned)i), x, sp)
                : isl_qpolynomial_var_on_domain(isl_space_copy(sp), types[k], (unsigned)i);
            q = v ? isl_qpolynomial_mul(q, isl_qpolynomial_pow(v, (unsigned)e))
                  : isl_qpolynomial_free(q);
        }
    }
    return q;
}

typedef struct Unfloor {
    int              x;
    isl_space       *space;
    isl_qpolynomial *out;
} Unfloor;

static isl_stat unfloor_term(__isl_take isl_term *t, void *user)
{
    Unfloor *u = user;
    isl_qpolynomial *q = term_poly(t, -1, u->x, u->space);
    isl_term_free(t);
    u->out = q ? isl_qpolynomial_add(u->out, q) : isl_qpolynomial_free(u->out);
    return u->out ? isl_stat_ok : isl_stat_error;
}

/* qp with no floor() of x (floor_of), or NULL */
static isl_qpolynomial *unfloor(__isl_keep isl_qpolynomial *qp, int x, __isl_keep isl_space *sp)
{
    Unfloor u = {x, sp, isl_qpolynomial_zero_on_domain(isl_space_copy(sp))};
    if (isl_qpolynomial_foreach_term(qp, unfloor_term, &u) != isl_stat_ok)
        return isl_qpolynomial_free(u.out);
    return u.out;
}

/* qp = sum_d c_d(y) x^d: one term at a time (no floor() holds x). */
static isl_stat split_term(__isl_take isl_term *t, void *user)
{
    Split *s = user;
    isl_size d = isl_term_get_exp(t, isl_dim_set, (unsigned)s->pos);
    isl_qpolynomial *q = d >= 0 && d <= MAX_DEGREE ? term_poly(t, s->pos, -1, s->space) : NULL;
    isl_term_free(t);
    if (!q)
        return isl_stat_error;
    q = isl_qpolynomial_drop_dims(q, isl_dim_in, (unsigned)s->pos, 1);
    s->by[d] = s->by[d] ? isl_qpolynomial_add(s->by[d], q) : q;
    if (d > s->degree)
        s->degree = d;
    return s->by[d] ? isl_stat_ok : isl_stat_error;
}

typedef struct Sum {
    Split              *split;
    isl_pw_aff         *hi;       /* over y */
    isl_pw_qpolynomial *out;
    bool                failed;
} Sum;

/* sum_d c_d (P_d(hi) - P_d(lo - 1)) on dom */
static isl_qpolynomial *interval_sum(Split *s, __isl_keep isl_aff *lo, __isl_keep isl_aff *hi)
{
    isl_qpolynomial *Ph[MAX_DEGREE + 1] = {0}, *Pl[MAX_DEGREE + 1] = {0}, *r = NULL;
    isl_aff *below = isl_aff_add_constant_si(isl_aff_copy(lo), -1);
    isl_qpolynomial *qh = isl_qpolynomial_from_aff(isl_aff_copy(hi));
    isl_qpolynomial *ql = isl_qpolynomial_from_aff(below);
    bool ok = qh && ql && faulhaber(qh, s->degree, Ph) && faulhaber(ql, s->degree, Pl);
    if (ok)
        r = isl_qpolynomial_zero_on_domain(isl_qpolynomial_get_domain_space(qh));
    for (int d = 0; ok && r && d <= s->degree; d++) {
        if (!s->by[d])
            continue;
        isl_qpolynomial *part = isl_qpolynomial_sub(isl_qpolynomial_copy(Ph[d]),
                                                    isl_qpolynomial_copy(Pl[d]));
        r = isl_qpolynomial_add(r, isl_qpolynomial_mul(isl_qpolynomial_copy(s->by[d]), part));
    }
    for (int d = 0; d <= MAX_DEGREE; d++) {
        isl_qpolynomial_free(Ph[d]);
        isl_qpolynomial_free(Pl[d]);
    }
    isl_qpolynomial_free(qh);
    isl_qpolynomial_free(ql);
    return ok ? r : isl_qpolynomial_free(r);
}

static isl_stat hi_piece(__isl_take isl_set *dh, __isl_take isl_aff *ah, void *user);

typedef struct LoPiece {
    Sum     *sum;
    isl_set *dom;
    isl_aff *lo;
} LoPiece;

static isl_stat lo_piece(__isl_take isl_set *dl, __isl_take isl_aff *al, void *user)
{
    Sum *s = user;
    LoPiece lp = {s, dl, al};
    isl_stat r = isl_pw_aff_foreach_piece(s->hi, hi_piece, &lp);
    isl_set_free(dl);
    isl_aff_free(al);
    return r;
}

static isl_stat hi_piece(__isl_take isl_set *dh, __isl_take isl_aff *ah, void *user)
{
    LoPiece *lp = user;
    Sum *s = lp->sum;
    isl_set *dom = isl_set_intersect(dh, isl_set_copy(lp->dom));
    isl_bool empty = isl_set_is_empty(dom);
    if (empty == isl_bool_true) {
        isl_set_free(dom);
        isl_aff_free(ah);
        return isl_stat_ok;
    }
    isl_qpolynomial *q = empty == isl_bool_false ? interval_sum(s->split, lp->lo, ah) : NULL;
    isl_aff_free(ah);
    if (!q) {
        isl_set_free(dom);
        s->failed = true;
        return isl_stat_error;
    }
    isl_pw_qpolynomial *piece = isl_pw_qpolynomial_alloc(dom, q);
    s->out = isl_pw_qpolynomial_add(s->out, piece);
    return s->out ? isl_stat_ok : isl_stat_error;
}

/* The bound of x over y: lexmin or lexmax of the map y -> x. */
static isl_pw_aff *bound(__isl_keep isl_map *m, bool max)
{
    isl_pw_multi_aff *f = max ? isl_map_lexmax_pw_multi_aff(isl_map_copy(m))
                              : isl_map_lexmin_pw_multi_aff(isl_map_copy(m));
    isl_pw_aff *a = isl_pw_multi_aff_get_pw_aff(f, 0);
    isl_pw_multi_aff_free(f);
    return a;
}

/* Are the points of b, for each y, every integer from lo(y) to hi(y)? */
static bool interval(__isl_keep isl_set *b, __isl_keep isl_pw_aff *lo, __isl_keep isl_pw_aff *hi,
                     int pos)
{
    isl_space *sp = isl_set_get_space(b);
    isl_pw_aff *x = isl_pw_aff_var_on_domain(isl_local_space_from_space(sp), isl_dim_set,
                                              (unsigned)pos);
    isl_pw_aff *l = isl_pw_aff_add_dims(isl_pw_aff_copy(lo), isl_dim_in, 1);
    isl_pw_aff *h = isl_pw_aff_add_dims(isl_pw_aff_copy(hi), isl_dim_in, 1);
    isl_set *from = isl_pw_aff_ge_set(isl_pw_aff_copy(x), l);
    isl_set *all = isl_set_intersect(from, isl_pw_aff_le_set(x, h));
    isl_bool eq = isl_set_is_equal(all, b);
    isl_set_free(all);
    return eq == isl_bool_true;
}

typedef struct Over {
    int                 pos;
    isl_qpolynomial    *qp;
    isl_pw_qpolynomial *out;
    bool                failed;
} Over;

/* The sum over x of one basic set's points. */
static isl_stat basic_sum(__isl_take isl_basic_set *bs, void *user)
{
    Over *o = user;
    isl_set *b = isl_set_from_basic_set(bs);
    isl_map *m = isl_map_move_dims(isl_map_from_range(isl_set_copy(b)), isl_dim_in, 0,
                                   isl_dim_out, 0, (unsigned)o->pos);
    isl_pw_aff *lo = bound(m, false), *hi = bound(m, true);
    isl_map_free(m);
    Split sp = {.pos = o->pos, .space = isl_qpolynomial_get_domain_space(o->qp)};
    isl_qpolynomial *qp = unfloor(o->qp, o->pos, sp.space);
    bool ok = qp && lo && hi && interval(b, lo, hi, o->pos) &&
              isl_qpolynomial_foreach_term(qp, split_term, &sp) == isl_stat_ok;
    isl_qpolynomial_free(qp);
    Sum s = {&sp, hi, o->out, false};
    if (ok) {
        ok = isl_pw_aff_foreach_piece(lo, lo_piece, &s) == isl_stat_ok && !s.failed;
        o->out = s.out;
    }
    for (int d = 0; d <= MAX_DEGREE; d++)
        isl_qpolynomial_free(sp.by[d]);
    isl_space_free(sp.space);
    isl_pw_aff_free(lo);
    isl_pw_aff_free(hi);
    isl_set_free(b);
    if (!ok)
        o->failed = true;
    return ok ? isl_stat_ok : isl_stat_error;
}

static isl_stat piece_sum(__isl_take isl_set *set, __isl_take isl_qpolynomial *qp, void *user)
{
    Over *o = user;
    o->qp = qp;
    set = isl_set_make_disjoint(set);
    isl_stat r = set ? isl_set_foreach_basic_set(set, basic_sum, o) : isl_stat_error;
    isl_set_free(set);
    isl_qpolynomial_free(qp);
    o->qp = NULL;
    if (r != isl_stat_ok)
        o->failed = true;
    return r;
}

isl_pw_qpolynomial *oklc_sum_last(__isl_take isl_pw_qpolynomial *f)
{
    isl_size n = isl_pw_qpolynomial_dim(f, isl_dim_in);
    if (n <= 0) {
        isl_pw_qpolynomial_free(f);
        return NULL;
    }
    isl_space *sp = isl_space_domain(isl_pw_qpolynomial_get_space(f));
    sp = isl_space_drop_dims(sp, isl_dim_set, (unsigned)n - 1, 1);
    Over o = {(int)n - 1, NULL, isl_pw_qpolynomial_zero(
                   isl_space_add_dims(isl_space_from_domain(sp), isl_dim_out, 1)), false};
    isl_stat r = isl_pw_qpolynomial_foreach_piece(f, piece_sum, &o);
    isl_pw_qpolynomial_free(f);
    if (r != isl_stat_ok || o.failed)
        return isl_pw_qpolynomial_free(o.out);
    return isl_pw_qpolynomial_coalesce(o.out);
}

/* f with set dimension i moved to the end (through the parameters) */
static isl_pw_qpolynomial *to_last(__isl_take isl_pw_qpolynomial *f, int i)
{
    isl_size np = isl_pw_qpolynomial_dim(f, isl_dim_param);
    isl_size n = isl_pw_qpolynomial_dim(f, isl_dim_in);
    if (np < 0 || n < 0)
        return isl_pw_qpolynomial_free(f);
    f = isl_pw_qpolynomial_move_dims(f, isl_dim_param, (unsigned)np, isl_dim_in, (unsigned)i, 1);
    return isl_pw_qpolynomial_move_dims(f, isl_dim_in, (unsigned)n - 1, isl_dim_param,
                                        (unsigned)np, 1);
}

/* f summed over its first n set dimensions, innermost first; where one's
 * sum is refused (its bounds have a floor() of another's fraction: summed
 * over k first, i < N - 256*k gives floor((N - i)/256)), or leads to
 * one that is, another goes first (at most *tries sums in all). */
static isl_pw_qpolynomial *sum_first(__isl_take isl_pw_qpolynomial *f, int n, int *tries)
{
    if (!n || !f)
        return f;
    isl_pw_qpolynomial *r = NULL;
    for (int i = n - 1; i >= 0 && !r && *tries > 0; i--, --*tries) {
        isl_pw_qpolynomial *g = oklc_sum_last(i == n - 1 ? isl_pw_qpolynomial_copy(f)
                                                         : to_last(isl_pw_qpolynomial_copy(f), i));
        r = sum_first(g, n - 1, tries);
    }
    isl_pw_qpolynomial_free(f);
    return r;
}

isl_pw_qpolynomial *oklc_sum_all(__isl_take isl_pw_qpolynomial *f)
{
    int tries = 64;
    isl_size n = isl_pw_qpolynomial_dim(f, isl_dim_in);
    return n < 0 ? isl_pw_qpolynomial_free(f) : sum_first(f, (int)n, &tries);
}

/* ---- as text ------------------------------------------------------------------------------- */

enum { MAX_PIECES = 32 };

/* A piece as printed: its polynomial simplified on its domain. */
typedef struct Piece {
    isl_set            *dom;
    char               *text;     /* isl's text of the polynomial */
    isl_pw_qpolynomial *shown;    /* that polynomial read back (everywhere) */
} Piece;

typedef struct Pieces {
    Piece p[MAX_PIECES];
    int   n;
} Pieces;

/* dom said simply: without its floor()s where they add nothing (N > 0,
 * not 16*floor(N/16) < N or N = 16*floor(N/16) >= 16) */
static isl_set *plain(__isl_take isl_set *dom)
{
    dom = isl_set_coalesce(dom);
    /* the hull without floor()s, each bound moved to dom's least value */
    isl_basic_set *h = isl_set_polyhedral_hull(isl_set_remove_divs(isl_set_copy(dom)));
    isl_constraint_list *cs = isl_basic_set_get_constraint_list(h);
    isl_set *tight = isl_set_universe(isl_set_get_space(dom));
    for (isl_size i = 0, n = isl_constraint_list_size(cs); i < n && tight; i++) {
        isl_constraint *c = isl_constraint_list_get_at(cs, i);
        if (isl_constraint_is_equality(c) != isl_bool_false) {
            tight = isl_set_add_constraint(tight, c);
            continue;
        }
        isl_aff *a = isl_constraint_get_aff(c);
        isl_constraint_free(c);
        isl_val *least = isl_set_min_val(dom, a);
        if (least && isl_val_is_int(least) == isl_bool_true)
            tight = isl_set_intersect(tight, isl_pw_aff_nonneg_set(isl_pw_aff_from_aff(
                                                 isl_aff_add_constant_val(isl_aff_copy(a), isl_val_neg(least)))));
        else
            isl_val_free(least);
        isl_aff_free(a);
    }
    isl_constraint_list_free(cs);
    isl_basic_set_free(h);
    tight = isl_set_coalesce(tight);
    if (isl_set_is_equal(tight, dom) == isl_bool_true) {
        isl_set_free(dom);
        return tight;
    }
    isl_set_free(tight);
    return dom;
}

static isl_stat gather(__isl_take isl_set *dom, __isl_take isl_qpolynomial *qp, void *user)
{
    Pieces *ps = user;
    if (ps->n == MAX_PIECES || !dom || !qp) {
        isl_set_free(dom);
        isl_qpolynomial_free(qp);
        return isl_stat_error;
    }
    dom = plain(dom);
    qp = isl_qpolynomial_gist(qp, isl_set_copy(dom));
    isl_printer *p = isl_printer_print_qpolynomial(isl_printer_to_str(isl_set_get_ctx(dom)), qp);
    char *text = isl_printer_get_str(p);
    isl_printer_free(p);
    isl_qpolynomial_free(qp);
    isl_pw_qpolynomial *shown = text ? isl_pw_qpolynomial_read_from_str(isl_set_get_ctx(dom), text)
                                     : NULL;
    ps->p[ps->n++] = (Piece){dom, text, shown};
    return shown ? isl_stat_ok : isl_stat_error;
}

/* Is dom one value of the parameters? */
static bool one_point(__isl_keep isl_set *dom)
{
    isl_size np = isl_set_dim(dom, isl_dim_param);
    isl_set *s = isl_set_move_dims(isl_set_copy(dom), isl_dim_set, 0, isl_dim_param, 0,
                                   (unsigned)np);
    bool one = np >= 0 && isl_set_dim(dom, isl_dim_set) == 0 &&
               isl_set_is_singleton(s) == isl_bool_true;
    isl_set_free(s);
    return one;
}

/* Does a's polynomial as printed give b's values on b's domain (the same
 * text, or at b's one point the same value: 16 - 16*N + 4*N^2 is 900 where
 * N = 17)? */
static isl_stat first_text(__isl_take isl_set *dom, __isl_take isl_qpolynomial *qp, void *user)
{
    char **text = user;
    isl_printer *p = isl_printer_print_qpolynomial(isl_printer_to_str(isl_set_get_ctx(dom)), qp);
    if (!*text)
        *text = isl_printer_get_str(p);
    isl_printer_free(p);
    isl_set_free(dom);
    isl_qpolynomial_free(qp);
    return isl_stat_ok;
}

static bool covers(const Piece *a, const Piece *b)
{
    if (!one_point(b->dom)) { /* a's polynomial simplified on b's domain: b's */
        char *t = NULL;
        isl_pw_qpolynomial *g = isl_pw_qpolynomial_gist(isl_pw_qpolynomial_copy(a->shown),
                                                         isl_set_copy(b->dom));
        isl_pw_qpolynomial_foreach_piece(g, first_text, &t);
        isl_pw_qpolynomial_free(g);
        bool same = t && !strcmp(t, b->text);
        free(t);
        return same;
    }
    isl_point *p = isl_set_sample_point(isl_set_copy(b->dom));
    isl_val *x = isl_pw_qpolynomial_eval(isl_pw_qpolynomial_copy(a->shown), isl_point_copy(p));
    isl_val *y = isl_pw_qpolynomial_eval(isl_pw_qpolynomial_copy(b->shown), p);
    bool same = x && y && isl_val_eq(x, y) == isl_bool_true;
    isl_val_free(x);
    isl_val_free(y);
    return same;
}

static void drop(Piece *p)
{
    isl_set_free(p->dom);
    free(p->text);
    isl_pw_qpolynomial_free(p->shown);
}

/* Pieces that one printed polynomial gives joined into its piece. */
static void join(Pieces *ps)
{
    for (int i = 1; i < ps->n; i++)
        for (int j = 0; j < i; j++) {
            Piece *a = &ps->p[j], *b = &ps->p[i];
            bool ab = covers(a, b), ba = !ab && covers(b, a);
            if (!ab && !ba)
                continue;
            if (ba) {
                Piece t = *a;
                *a = *b, *b = t;
            }
            a->dom = plain(isl_set_union(a->dom, isl_set_copy(b->dom)));
            drop(b);
            ps->p[i] = ps->p[--ps->n];
            i = 0;            /* a's text may now cover one seen before */
            break;
        }
}

/* isl's text s (freed) from lead on, without the closing " }", its
 * products written as the other formulas write them ("4*N") */
static void inner_text(Buf *b, char *s, const char *lead)
{
    const char *from = s ? strstr(s, lead) : NULL;
    from = from ? from + strlen(lead) : s ? s : "?";
    size_t n = strlen(from);
    while (n && (from[n - 1] == '}' || from[n - 1] == ' '))
        n--;
    for (size_t i = 0; i < n; i++) {
        bool times = i + 2 < n && !strncmp(from + i, " * ", 3);
        oklc_buf_printf(b, "%c", times ? '*' : from[i]);
        i += times ? 2 : 0;
    }
    free(s);
}

bool oklc_sum_print(__isl_keep isl_pw_qpolynomial *pw, Buf *b)
{
    Pieces ps = {.n = 0};
    pw = isl_pw_qpolynomial_coalesce(isl_pw_qpolynomial_copy(pw));
    bool ok = pw && isl_pw_qpolynomial_foreach_piece(pw, gather, &ps) == isl_stat_ok;
    if (ok)
        join(&ps);
    for (int i = 0; ok && i < ps.n; i++) {
        oklc_buf_printf(b, "%s", i ? "; " : "");
        inner_text(b, strdup(ps.p[i].text), "[] -> ");
        if (isl_set_plain_is_universe(ps.p[i].dom) != isl_bool_true) {
            oklc_buf_printf(b, " where ");
            inner_text(b, isl_set_to_str(ps.p[i].dom), "[] : ");
        }
    }
    if (ok && ps.n && !(ps.n == 1 && isl_set_plain_is_universe(ps.p[0].dom) == isl_bool_true))
        oklc_buf_printf(b, "; 0 otherwise");
    if (ok && !ps.n)
        oklc_buf_printf(b, "0");
    for (int i = 0; i < ps.n; i++)
        drop(&ps.p[i]);
    isl_pw_qpolynomial_free(pw);
    return ok;
}
