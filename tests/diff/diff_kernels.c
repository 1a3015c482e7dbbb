/*
 * diff_kernels.c - differential test of the CPU backends' rewrites: random
 * GPU-style kernels (threads summing strided slices, @shared arrays written
 * by their own thread and read by others after a barrier, tree reductions,
 * guards, data-dependent trip counts, break, sequential loops around
 * barriers), each written twice (OKL style: one @inner loop per region;
 * CUDA style: one @inner loop with @barrier between the regions), run on
 * every CPU device and on OpenCL, whose work-groups run with real barriers.
 * Every run of every kernel must leave the same output, bit for bit: the
 * values are small integers (unsigned, or floats far from 2^24), exact in any
 * order of additions; the generator keeps every kernel free of races and of
 * reads of unwritten memory, so a difference is a wrong result.
 *
 * Some kernels run several blocks one after the other in a
 * @tile(N, @outer) (the loop in a tile is oklc's: on GPUs its iterations
 * reuse the @shared arrays after a barrier, as a loop the user writes), and
 * number their threads with a @tile(N, @inner, @inner); regular loops
 * repeat regions that reuse the @shared arrays; statements call lambdas of
 * every capture form, with returns of their own (in the files of even seeds:
 * the OpenCL device, whose language has no lambdas, leaves those out).
 *
 * With -S every kernel stages x in its @shared arrays instead: one
 * region copies elements of x into them, the later ones only read them
 * (the shape whose nests the CPU backends fuse, reading x in place).
 *
 * With -T the kernels are timed instead (bench/rewrites.sh): each built
 * twice on the serial and the OpenMP device, with the CPU rewrites on and
 * off (oklc_props_cpu_rewrites); the two must leave the same output, bit
 * for bit, and a kernel whose rewritten code is slower by more than 5%
 * (the medians and the fastest samples both, in two rounds of timing) is
 * reported; a kernel whose function is the same text both ways is not
 * timed (its time can only move with the rest of the library's code). -R
 * compares the two only.
 *
 * Usage: diff_kernels [-s SEED] [-n FILES] [-k KERNELS] [-d DIR] [-S] [-T|-R] [-v]
 *   SEED: the first file's seed (default 1); FILES: how many files (default
 *   3), KERNELS: descriptions per file (default 12, two kernels each);
 *   DIR: where the files are written and, on a difference, kept (default a
 *   temporary folder, removed when all agree). Devices: serial, OpenMP with
 *   3 threads, OpenCL (left out where no platform exists).
 * Exit status: 0 all agree, 1 a difference or a kernel that did not build.
 */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "oklc/oklc.h"
#include "oklc/runtime.h"

/* out: NSLOTS values per thread (v0, v1, v2, the sum of w), then one per
 * block (after a tree), then NBINS bins of a histogram and a sum (@atomic) */
enum { MAX_REGIONS = 8, MAX_STMTS = 5, NVARS = 3, NSHARED = 2, NSLOTS = 4, NBINS = 8 };
enum { MAX_N = 1500, NW = 4 };    /* NW: elements of the thread array w */
_Static_assert(NW == 4, "the kernels spell w's four elements out");

/* ---- a small deterministic generator (xorshift64*) ------------------------------------- */

static uint64_t rng;

static unsigned pick(unsigned n)
{
    rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
    return (unsigned)((rng * 2685821657736338717ull) >> 33) % n;
}

static bool chance(unsigned percent)
{
    return pick(100) < percent;
}

/* ---- growing text ------------------------------------------------------------------------ */

typedef struct {
    char *s;
    size_t n, cap;
} Text;

static void put(Text *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
        va_end(ap);
        if (t->s && (size_t)k < t->cap - t->n) {
            t->n += (size_t)k;
            return;
        }
        t->cap = (t->cap + (size_t)k + 1) * 2;
        t->s = realloc(t->s, t->cap);
        if (!t->s)
            abort();
    }
}

/* ---- a kernel's description ---------------------------------------------------------------
 * A block of TS threads runs regions one after the other with a barrier
 * between them; each region is a list of statements, written the same way
 * in both styles. Thread values v0..v2 live across regions (@exclusive in
 * the OKL style, locals of the @inner loop in the CUDA style). */

typedef struct {
    Text text;         /* the statements; b, t, gi, N, nblocks defined */
} Region;

typedef struct {
    bool floats;       /* float values, else unsigned */
    int ts;            /* threads per block */
    int tx;            /* > 0: a 2D block, tx threads along x, ts / tx along y */
    bool grid2;        /* the blocks as a 2D grid (@outer(1), @outer(0)) */
    bool down;         /* the @inner loop (along x) counts down */
    int btile;         /* > 0: blocks in a @tile(btile, @outer), one after the other */
    int ttile;         /* > 0: the 1D threads as a @tile(ttile, @inner, @inner) */
    bool lambdas;      /* statements may call lambdas (C++: not on OpenCL) */
    int chunk;         /* elements of x per block */
    int repeat;        /* > 0: regions [rep_from, nregions) run this often in a loop */
    int rep_from;
    int nregions;
    Region r[MAX_REGIONS];
    int tree[MAX_REGIONS];    /* > 0: region i is a tree reduction of s<tree-1> */
    int cond[MAX_REGIONS];    /* > 0: region i runs if N > cond (the same for all threads) */
    bool half[MAX_REGIONS];   /* region i runs on the first half of the threads: a
                                 smaller @inner loop (OKL style), an if (CUDA style) */
    int stage[MAX_REGIONS];   /* -S: region i copies x into the @shared arrays (1), and
                                 has other statements too (2) */
} Desc;

static bool staged;    /* -S: every kernel stages x (region 1), and then only reads it */
static bool cxx_file;  /* this file's kernels may call lambdas (OpenCL builds none of it) */

/* What the generator knows while it writes a region: which shared arrays
 * hold a value in every slot, which the region writes (own slot only) and
 * which it reads at other slots; bounds of the magnitudes, so that floats
 * stay exact. */
typedef struct {
    Desc *d;
    bool filled[NSHARED];
    bool writes[NSHARED], reads[NSHARED];
    double vbound[NVARS], sbound[NSHARED], wbound;
    double abound;     /* of what the @atomic adds put in one element of out */
    int summed;        /* > 0: s<summed-1> was just summed by a tree */
    int locals;        /* sums declared in regions so far (a<n>: each name once) */
} Gen;

static const char *ty(const Desc *d)
{
    return d->floats ? "float" : "unsigned";
}

static bool fits(const Gen *g, double bound)
{
    return !g->d->floats || bound < (double)(1 << 22);
}

/* A sum of the thread's own, a<n>, over the block's neighbouring elements
 * (a loop the CPU backends interchange with the threads, in tiles in a 2D
 * block), added to v<v>; under a guard of some threads if `guard`. */
static bool own_sum(Gen *g, Text *r, int v, int w, int c, bool guard)
{
    const Desc *d = g->d;
    const int trips = 1 + (int)pick(4);
    double nb = g->vbound[v] + g->vbound[w] + 9.0 * c * trips;
    if (!fits(g, nb))
        return false;
    const int a = g->locals++;
    if (guard)
        put(r, "if (%s) {\n", chance(50) ? "gi < N - 5" : "t % 3 != 1");
    put(r, "%s a%d = v%d;\nfor (int k = 0; k < %d; ++k) {\n  const int i = b * %d + k * %d + t;\n"
           "  if (i < N) a%d += x[i] * %d;\n}\nv%d += a%d;\n", ty(d), a, w, trips, d->chunk,
        d->ts, a, c, v, a);
    if (guard)
        put(r, "}\n");
    g->vbound[v] = nb;
    return true;
}

/* One statement into region text `r`; false when the choice is not legal
 * here (the caller picks again). */
static bool statement(Gen *g, Text *r)
{
    Desc *d = g->d;
    const int v = (int)pick(NVARS), w = (int)pick(NVARS), s = (int)pick(NSHARED);
    const int c = 1 + (int)pick(3);
    unsigned kind = d->lambdas && chance(20) ? 19 : pick(21);
    /* staged: the copy is all that writes the @shared arrays, the last
     * region all that writes out */
    if (staged && (kind == 4 || kind == 8 || kind == 10 || kind == 17 || kind == 18))
        return false;
    switch (kind) {
    case 0: {    /* a strided slice of the block's chunk */
        static const char *ends[] = {"min(N, b * %d + %d)", "(b * %d + %d < N ? b * %d + %d : N)"};
        const int step = d->ts * (int[]){1, 2, 1}[pick(3)] / (int[]){1, 1, 2}[pick(3)];
        double nb = g->vbound[v] + 9.0 * c * ((double)d->chunk / (step ? step : 1) + 1);
        if (!fits(g, nb) || step <= 0)
            return false;
        char end[96];
        if (chance(50))
            snprintf(end, sizeof end, ends[0], d->chunk, d->chunk);
        else
            snprintf(end, sizeof end, ends[1], d->chunk, d->chunk, d->chunk, d->chunk);
        put(r, "for (int i = b * %d + t; i < %s; i += %d) v%d += %d * x[i];\n", d->chunk, end,
            step, v, c);
        g->vbound[v] = nb;
        return true;
    }
    case 1: {    /* grid-stride over all of x */
        double nb = g->vbound[v] + 9.0 * c * (MAX_N / d->ts + 1);
        if (!fits(g, nb))
            return false;
        put(r, "for (int i = b * %d + t; i < N; i += nblocks * %d) v%d += x[i] * %d;\n", d->ts,
            d->ts, v, c);
        g->vbound[v] = nb;
        return true;
    }
    case 2: {    /* a trip count read from memory */
        double nb = g->vbound[v] + 4.0 * (d->ts + 4);
        if (!fits(g, nb))
            return false;
        put(r, "for (int j = 0; j < (int)x[gi %% N] %% 5; ++j) v%d += j + t;\n", v);
        g->vbound[v] = nb;
        return true;
    }
    case 3: {    /* break out of a thread's loop, or continue it */
        double nb = g->vbound[v] + 9.0 * 4;
        if (!fits(g, nb))
            return false;
        put(r, "for (int i = t; i < %d; i += %d) {\n  if (x[(b * %d + i) %% N] %s) %s;\n"
               "  v%d += x[(b * %d + i) %% N];\n}\n", 4 * d->ts, d->ts, d->chunk,
            chance(50) ? "> 6" : "< 3", chance(50) ? "break" : "continue", v, d->chunk);
        g->vbound[v] = nb;
        return true;
    }
    case 4:    /* own slot written */
        if (g->reads[s] || !fits(g, g->vbound[v] + d->ts))
            return false;
        put(r, "s%d[t] = v%d + t;\n", s, v);
        g->writes[s] = true;
        g->sbound[s] = g->vbound[v] + d->ts;
        return true;
    case 5: {    /* another thread's slot read */
        double nb = g->vbound[v] + c * g->sbound[s];
        if (!g->filled[s] || g->writes[s] || !fits(g, nb))
            return false;
        put(r, "v%d += %d * s%d[(t + %d) %% %d];\n", v, c, s, 1 + (int)pick((unsigned)d->ts), d->ts);
        g->reads[s] = true;
        g->vbound[v] = nb;
        return true;
    }
    case 6: {    /* a thread's loop over the whole array */
        double nb = g->vbound[v] + d->ts * g->sbound[s];
        if (!g->filled[s] || g->writes[s] || !fits(g, nb))
            return false;
        put(r, "for (int k = 0; k < %d; ++k) v%d += s%d[k]%s;\n", d->ts, v, s,
            chance(50) ? "" : " * (k & 1)");
        g->reads[s] = true;
        g->vbound[v] = nb;
        return true;
    }
    case 7: {    /* a guarded update */
        double nb = g->vbound[v] + g->vbound[w] + 9;
        if (!fits(g, nb) || v == w)
            return false;
        static const char *conds[] = {"t < %d", "t %% %d == 0", "gi < N - %d"};
        char cond[64];
        snprintf(cond, sizeof cond, conds[pick(3)], 1 + (int)pick((unsigned)d->ts));
        put(r, "if (%s) v%d += v%d + x[gi %% N];\n", cond, v, w);
        g->vbound[v] = nb;
        return true;
    }
    case 8:    /* a value to the output: slot j of every thread */
        put(r, "out[%d * nblocks * %d + gi] = v%d;\n", (int)pick(NSLOTS), d->ts, v);
        return true;
    case 9: {    /* other threads' slots read in a slice */
        double nb = g->vbound[v] + 9.0 * g->sbound[s] * ((double)d->chunk / d->ts + 1);
        if (!g->filled[s] || g->writes[s] || !fits(g, nb))
            return false;
        put(r, "for (int i = b * %d + t; i < min(N, b * %d + %d); i += %d) v%d += s%d[i %% %d] * x[i];\n",
            d->chunk, d->chunk, d->chunk, d->ts, v, s, d->ts);
        g->reads[s] = true;
        g->vbound[v] = nb;
        return true;
    }
    case 10:    /* own slot updated in a loop */
        if (!g->filled[s] || g->reads[s] || !fits(g, g->sbound[s] + 27))
            return false;
        put(r, "for (int j = 0; j < 3; ++j) s%d[t] += x[(gi + j) %% N];\n", s);
        g->writes[s] = true;
        g->sbound[s] += 27;
        return true;
    case 11:    /* the thread's array, element by element */
        if (!fits(g, NW * (g->wbound + 9)))
            return false;
        put(r, "for (int j = 0; j < %d; ++j) w[j] += x[(gi * %d + j) %% N];\n", NW, NW);
        g->wbound += 9;
        return true;
    case 12:    /* the thread's array, at an index of its own */
        if (!fits(g, NW * (g->wbound + g->vbound[v])))
            return false;
        put(r, "w[gi & %d] += v%d;\n", NW - 1, v);
        g->wbound += g->vbound[v];
        return true;
    case 13: {    /* read from the thread's array */
        double nb = g->vbound[v] + g->wbound;
        if (!fits(g, nb))
            return false;
        put(r, "v%d += w[%d];\n", v, (int)pick(NW));
        g->vbound[v] = nb;
        return true;
    }
    case 14: {    /* while and do-while loops */
        double nb = g->vbound[v] + 27 + 6;
        if (!fits(g, nb))
            return false;
        if (chance(50))
            put(r, "{\n  int j = t %% 3;\n  while (j < 5) {\n    v%d += x[(gi + j) %% N];\n"
                   "    j += 2;\n  }\n}\n", v);
        else
            put(r, "{\n  int j = 0;\n  do {\n    v%d += j;\n    ++j;\n  } while (j < (int)x[gi %% N] %% 4);\n}\n", v);
        g->vbound[v] = nb;
        return true;
    }
    case 15:    /* a sum of its own over the block's neighbouring elements (maybe guarded) */
        return own_sum(g, r, v, w, c, chance(50));
    case 16: {    /* a function of the file */
        double nb = g->vbound[v] + 19;
        if (!fits(g, nb))
            return false;
        put(r, "v%d += twice_plus_%c(x[gi %% N]);\n", v, d->floats ? 'f' : 'u');
        g->vbound[v] = nb;
        return true;
    }
    case 17:    /* a histogram with @atomic (small integers: exact in any order) */
        if (!fits(g, g->abound + MAX_N + d->ts))
            return false;
        put(r, "@atomic out[%d * nblocks * %d + nblocks + (int)x[gi %% N] %% %d] += 1;\n", NSLOTS,
            d->ts, NBINS);
        g->abound += MAX_N + d->ts;
        return true;
    case 18: {    /* a sum of every thread's value with @atomic at one place */
        double nb = g->abound + (MAX_N + d->ts) * g->vbound[v];
        if (!fits(g, nb))
            return false;
        put(r, "@atomic out[%d * nblocks * %d + nblocks + %d] += v%d;\n", NSLOTS, d->ts, NBINS, v);
        g->abound = nb;
        return true;
    }
    case 19: {    /* a lambda, with returns of its own */
        static const char *forms[] = {
            "[c%d](%s a) -> %s { if (a > 6) return a * c%d; return a + c%d; }",
            "[=](%s a) { if (a > 6) return a * c%d; return a + c%d; }",
            "[&](const %s a) -> %s { return a > 6 ? a * c%d : a + c%d; }",
            "[m = c%d](%s a) mutable { if (a > 6) return a * m; m += 0; return a + m; }",
            "[c%d](%s a) { auto in = [](%s b) { return b; }; if (a > 6) return in(a) * c%d; "
            "return in(a) + c%d; }",
        };
        double nb = g->vbound[v] + 9.0 * 3;
        if (!d->lambdas || !fits(g, nb))
            return false;
        const unsigned f = pick(5);
        const int l = g->locals++;
        const char *t = ty(d);
        char body[256];
        switch (f) {
        case 0: snprintf(body, sizeof body, forms[0], l, t, t, l, l); break;
        case 1: snprintf(body, sizeof body, forms[1], t, l, l); break;
        case 2: snprintf(body, sizeof body, forms[2], t, t, l, l); break;
        case 3: snprintf(body, sizeof body, forms[3], l, t); break;
        default: snprintf(body, sizeof body, forms[4], l, t, t, l, l); break;
        }
        put(r, "const %s c%d = %d;\nauto f%d = %s;\nv%d += f%d(x[gi %% N]);\n", t, l, c, l, body,
            v, l);
        g->vbound[v] = nb;
        return true;
    }
    default: {    /* a thread-dependent but unconditional update */
        double nb = g->vbound[v] * 2 + 9;
        if (!fits(g, nb) || v == w)
            return false;
        put(r, "v%d = v%d + v%d * %d + (gi & 7);\n", v, v, w, c % 2);
        g->vbound[v] = g->vbound[v] + g->vbound[w] + 9;
        return true;
    }
    }
}

/* A region of 1..MAX_STMTS statements. */
static void region(Gen *g, Region *reg, bool cond)
{
    memset(g->writes, 0, sizeof g->writes);
    memset(g->reads, 0, sizeof g->reads);
    if (g->summed) {    /* after a tree: thread 0 writes the block's sum out */
        const int s = g->summed - 1;
        put(&reg->text, "if (t == 0) out[%d * nblocks * %d + b] = s%d[0];\n", NSLOTS, g->d->ts, s);
        g->reads[s] = true;
        g->summed = 0;
    }
    /* now and then a region that is one guarded loop: all the @inner loop
     * holds in the OKL style, the shape of a guard of the threads */
    if (!reg->text.n && chance(10) &&
        own_sum(g, &reg->text, (int)pick(NVARS), (int)pick(NVARS), 1 + (int)pick(3), true))
        return;
    const int n = 1 + (int)pick(MAX_STMTS);
    for (int k = 0, tries = 0; k < n && tries < 100; tries++)
        k += statement(g, &reg->text);
    for (int s = 0; s < NSHARED; s++)    /* a region that may not run fills nothing */
        g->filled[s] |= g->writes[s] && !cond;
}

/* A tree over s<s> (TS a power of two): s[0] then holds the block's sum. */
static bool tree(Gen *g, Desc *d, int i)
{
    const int s = (int)pick(NSHARED);
    if ((d->ts & (d->ts - 1)) || !g->filled[s] || !fits(g, g->sbound[s] * d->ts))
        return false;
    d->tree[i] = s + 1;
    g->sbound[s] *= d->ts;
    g->summed = s + 1;
    return true;
}

/* -S: region `reg` copies elements of x into the @shared arrays (scaled
 * or shifted), one statement each, every slot filled; half the time a
 * statement of another kind follows (not reading them: no barrier yet).
 * Returns 2 when it did, else 1. */
static int stage(Gen *g, Region *reg)
{
    const Desc *d = g->d;
    memset(g->writes, 0, sizeof g->writes);
    memset(g->reads, 0, sizeof g->reads);
    for (int s = 0; s < NSHARED; s++) {
        if (s && chance(30))
            continue;
        const int c = 1 + (int)pick(3);
        put(&reg->text, "s%d[t] = x[(b * %d + t + %d) %% N] %s %d;\n", s, d->chunk,
            (int)pick(7), chance(50) ? "*" : "+", c);
        g->writes[s] = true;
        g->sbound[s] = 9.0 * c + c;
    }
    bool more = chance(50);
    for (int tries = 0; more && tries < 100 && !statement(g, &reg->text); tries++)
        ;
    for (int s = 0; s < NSHARED; s++)
        g->filled[s] |= g->writes[s];
    return more ? 2 : 1;
}

static void describe(Desc *d)
{
    static const int sizes[] = {16, 32, 64, 24, 8};
    memset(d, 0, sizeof *d);
    Gen g = {.d = d};
    d->floats = chance(40);
    d->ts = sizes[pick(5)];
    if (chance(30)) {    /* a 2D block */
        static const int shapes[][2] = {{8, 4}, {16, 2}, {4, 4}, {8, 8}, {2, 4}};
        const int *sh = shapes[pick(5)];
        d->tx = sh[0];
        d->ts = sh[0] * sh[1];
    }
    d->chunk = d->ts * (1 + (int)pick(4)) + (chance(30) ? (int)pick(7) : 0);
    d->grid2 = chance(25);
    d->down = chance(20);
    d->nregions = 2 + (int)pick(MAX_REGIONS - 2);
    d->lambdas = cxx_file && chance(50);
    if (!d->grid2 && chance(25))
        d->btile = 2 + (int)pick(3);
    if (!d->tx && !d->down && chance(25)) {
        static const int tiles[] = {2, 4, 8};
        d->ttile = tiles[pick(3)];
        while (d->ttile > 2 && (d->ts / 2) % d->ttile)    /* a tile fills even half the threads */
            d->ttile /= 2;
    }
    if (staged) {    /* a 1D block counting up, one block per @outer iteration */
        d->tx = 0;
        d->chunk = d->ts * (1 + d->chunk / d->ts);
        d->grid2 = d->down = false;
        d->btile = 0;
        d->nregions += d->nregions < 3;
    }
    if (!d->floats && chance(40)) {    /* a repeat makes bounds grow: unsigned only */
        d->rep_from = 1 + (int)pick((unsigned)d->nregions - 1);
        d->repeat = 2 + (int)pick(3);
    }
    for (int i = 0; i < d->nregions; i++) {
        if (staged && i == 1) {
            d->stage[i] = stage(&g, &d->r[i]);
            continue;
        }
        if (staged) {
            region(&g, &d->r[i], false);
            continue;
        }
        /* a tree needs a region after it for its sum, and stays out of the repeat */
        if (!g.summed && i + 1 < d->nregions && (!d->repeat || i + 1 < d->rep_from) &&
            chance(30) && tree(&g, d, i))
            continue;
        if (i > 0 && i + 1 < d->nregions && chance(15))
            d->cond[i] = (int)pick(MAX_N);
        /* not counting down: a smaller loop from n / 2 - 1 down would give
         * iteration t to another thread (an @exclusive is the thread's) */
        d->half[i] = i > 0 && i + 1 < d->nregions && !d->tx && !d->down && chance(15);
        region(&g, &d->r[i], d->cond[i] > 0 || d->half[i]);
    }
    /* every thread value is seen at the end */
    Text *last = &d->r[d->nregions - 1].text;
    for (int v = 0; v < NVARS; v++)
        put(last, "out[%d * nblocks * %d + gi] = v%d;\n", v, d->ts, v);
    put(last, "out[%d * nblocks * %d + gi] = w[0] + w[1] + w[2] + w[3];\n", NVARS, d->ts);
}

/* ---- the two spellings -------------------------------------------------------------------- */

static void indented(Text *out, const Text *body, int depth)
{
    for (const char *p = body->s; p && *p;) {
        const char *e = strchr(p, '\n');
        put(out, "%*s%.*s\n", depth * 2, "", (int)(e - p), p);
        p = e + 1;
    }
}

static void header(Text *o, const Desc *d, const char *name)
{
    put(o, "@kernel void %s(const int N, const int nblocks, @restrict const %s *x,\n"
           "    @restrict %s *out)\n{\n", name, ty(d), ty(d));
    if (d->grid2)    /* blocks in pairs: by, bx; the last pair may have one */
        put(o, "  for (int by = 0; by < (nblocks + 1) / 2; ++by; @outer(1)) {\n"
               "  for (int bx = 0; bx < 2; ++bx; @outer(0)) {\n"
               "    const int b = by * 2 + bx;\n");
    else if (d->btile)    /* the loop in the tile: oklc's */
        put(o, "  for (int b = 0; b < nblocks; ++b; @tile(%d, @outer)) {\n", d->btile);
    else
        put(o, "  for (int b = 0; b < nblocks; ++b; @outer) {\n");
    for (int s = 0; s < NSHARED; s++)
        put(o, "    @shared %s s%d[%d];\n", ty(d), s, d->ts);
}

/* After the block's declarations: the pair's missing block does nothing. */
static void guard(Text *o, const Desc *d)
{
    if (d->grid2)
        put(o, "    if (b < nblocks) {\n");
}

static void footer(Text *o, const Desc *d)
{
    if (d->grid2)
        put(o, "    }\n  }\n");
    put(o, "  }\n}\n\n");
}

/* The @inner loop (or the 2D nest) over the block's threads (the first
 * half of them if `half`), t the thread's number; close_threads ends it. */
static void open_threads(Text *o, const Desc *d, int depth, bool half)
{
    const int n = half ? d->ts / 2 : d->ts;
    if (!d->tx && d->down) {
        put(o, "%*sfor (int t = %d; t >= 0; --t; @inner) {\n", 2 * depth, "", n - 1);
        return;
    }
    if (!d->tx && d->ttile) {
        put(o, "%*sfor (int t = 0; t < %d; ++t; @tile(%d, @inner, @inner)) {\n", 2 * depth, "", n,
            d->ttile);
        return;
    }
    if (!d->tx) {
        put(o, "%*sfor (int t = 0; t < %d; ++t; @inner) {\n", 2 * depth, "", n);
        return;
    }
    put(o, "%*sfor (int ty = 0; ty < %d; ++ty; @inner(1)) {\n", 2 * depth, "", d->ts / d->tx);
    if (d->down)
        put(o, "%*sfor (int tx = %d; tx > -1; tx -= 1; @inner(0)) {\n", 2 * depth + 2, "",
            d->tx - 1);
    else
        put(o, "%*sfor (int tx = 0; tx < %d; ++tx; @inner(0)) {\n", 2 * depth + 2, "", d->tx);
    put(o, "%*sconst int t = ty * %d + tx;\n", 2 * depth + 4, "", d->tx);
}

static void close_threads(Text *o, const Desc *d, int depth)
{
    if (d->tx)
        put(o, "%*s}\n", 2 * depth + 2, "");
    put(o, "%*s}\n", 2 * depth, "");
}

static int inside(const Desc *d, int depth)
{
    return d->tx ? depth + 2 : depth + 1;
}

/* One @inner loop per region; a regular loop around the repeated ones; a
 * tree as a loop of @inner loops (or its levels one by one). */
static void okl_style(Text *o, const Desc *d, const char *name, bool levels)
{
    header(o, d, name);
    put(o, "    @exclusive %s v0, v1, v2;\n    @exclusive %s w[%d];\n", ty(d), ty(d), NW);
    guard(o, d);
    int depth = 2;
    for (int i = 0; i < d->nregions; i++) {
        if (d->repeat && i == d->rep_from)
            put(o, "%*sfor (int r = 0; r < %d; ++r) {\n", 2 * depth++, "", d->repeat);
        const int s = d->tree[i] - 1;
        if (s >= 0) {
            const int in = inside(d, depth + !levels);
            for (int k = d->ts / 2; k > 0; k /= 2) {
                if (!levels && k == d->ts / 2)
                    put(o, "%*sfor (int k = %d; k > 0; k /= 2) {\n", 2 * depth, "", k);
                open_threads(o, d, depth + !levels, false);
                if (levels)
                    put(o, "%*sif (t < %d) s%d[t] += s%d[t + %d];\n", 2 * in, "", k, s, s, k);
                else
                    put(o, "%*sif (t < k) s%d[t] += s%d[t + k];\n", 2 * in, "", s, s);
                close_threads(o, d, depth + !levels);
                if (!levels) {
                    put(o, "%*s}\n", 2 * depth, "");
                    break;
                }
            }
            continue;
        }
        if (d->cond[i])
            put(o, "%*sif (N > %d) {\n", 2 * depth++, "", d->cond[i]);
        open_threads(o, d, depth, d->half[i]);
        if (d->stage[i] != 1)    /* copies only: nothing else in the loop */
            put(o, "%*sconst int gi = b * %d + t;\n", 2 * inside(d, depth), "", d->ts);
        if (i == 0)
            put(o, "%*sv0 = 0; v1 = 0; v2 = 0;\n%*sfor (int j = 0; j < %d; ++j) w[j] = 0;\n",
                2 * inside(d, depth), "", 2 * inside(d, depth), "", NW);
        indented(o, &d->r[i].text, inside(d, depth));
        close_threads(o, d, depth);
        if (d->cond[i])
            put(o, "%*s}\n", 2 * --depth, "");
    }
    if (d->repeat)
        put(o, "    }\n");
    footer(o, d);
}

/* One @inner loop, the regions separated by @barrier, thread values its
 * locals; a tree as a loop with a barrier in each level. */
static void cuda_style(Text *o, const Desc *d, const char *name)
{
    header(o, d, name);
    guard(o, d);
    open_threads(o, d, 2, false);
    int depth = inside(d, 2);
    put(o, "%*sconst int gi = b * %d + t;\n%*s%s v0 = 0, v1 = 0, v2 = 0;\n", 2 * depth, "",
        d->ts, 2 * depth, "", ty(d));
    put(o, "%*s%s w[%d] = {0, 0, 0, 0};\n", 2 * depth, "", ty(d), NW);
    const int top = depth;
    for (int i = 0; i < d->nregions; i++) {
        if (d->repeat && i == d->rep_from)
            put(o, "%*sfor (int r = 0; r < %d; ++r) {\n", 2 * depth++, "", d->repeat);
        const int s = d->tree[i] - 1;
        if (s >= 0)
            put(o, "%*sfor (int k = %d; k > 0; k /= 2) {\n%*sif (t < k) s%d[t] += s%d[t + k];\n"
                   "%*s@barrier;\n%*s}\n", 2 * depth, "", d->ts / 2, 2 * depth + 2, "", s, s,
                2 * depth + 2, "", 2 * depth, "");
        else if (d->cond[i])    /* the barrier inside the condition */
            put(o, "%*sif (N > %d) {\n", 2 * depth, "", d->cond[i]);
        const int in = depth + (d->cond[i] > 0);
        if (d->half[i])
            put(o, "%*sif (t < %d) {\n", 2 * in, "", d->ts / 2);
        if (s < 0)
            indented(o, &d->r[i].text, in + d->half[i]);
        if (d->half[i])
            put(o, "%*s}\n", 2 * in, "");
        if (i + 1 < d->nregions || d->repeat)
            put(o, "%*s@barrier;\n", 2 * (depth + (d->cond[i] > 0)), "");
        if (d->cond[i])
            put(o, "%*s}\n", 2 * depth, "");
    }
    if (d->repeat)
        put(o, "%*s}\n", 2 * top, "");
    close_threads(o, d, 2);
    footer(o, d);
}

/* ---- running -------------------------------------------------------------------------------- */

typedef struct {
    const char *spec;
    oklc_device *dev;
} Device;

static bool verbose;
static bool timing;    /* -T, or -R: the rewritten against the plain translation */
static bool untimed;   /* -R: compared only */

/* The N elements of x: small integers, as floats where the kernel's are. */
static uint32_t *input(const Desc *d, int n)
{
    uint32_t *x = malloc((size_t)n * 4);
    for (int i = 0; i < n; i++) {
        const unsigned v = (unsigned)(i * 7 + i / 13) % 10;
        if (d->floats) {
            const float f = (float)v;
            memcpy(&x[i], &f, 4);
        } else {
            x[i] = v;
        }
    }
    return x;
}

/* Runs kernel `name` of `path` on `dev` with N elements of x; the output
 * into `res` (count elements of 4 bytes). False with a message when it did
 * not build or run. */
static bool run_one(Device *dv, const char *path, const char *name, const Desc *d, int n,
                    uint32_t *res, size_t count)
{
    oklc_kernel *k = NULL;
    oklc_memory *mx = NULL, *mo = NULL;
    bool ok = false;
    uint32_t *x = input(d, n);
    for (size_t i = 0; i < count; i++)
        res[i] = 0x7fbadbadu;    /* a NaN for floats: must stay as it is */
    const int nblocks = (n + d->chunk - 1) / d->chunk;
    if (oklc_kernel_build(dv->dev, path, name, NULL, &k) != OKLC_OK ||
        oklc_memory_alloc(dv->dev, (size_t)n * 4, &mx) != OKLC_OK ||
        oklc_memory_alloc(dv->dev, count * 4, &mo) != OKLC_OK ||
        oklc_memory_copy_from_host(mx, x, (size_t)n * 4, 0) != OKLC_OK ||
        oklc_memory_copy_from_host(mo, res, count * 4, 0) != OKLC_OK) {
        fprintf(stderr, "%s: %s on %s: %s\n", path, name, dv->spec, oklc_last_error());
        goto done;
    }
    oklc_arg args[] = {oklc_arg_int(n), oklc_arg_int(nblocks), oklc_arg_mem(mx),
                       oklc_arg_mem(mo)};
    if (oklc_kernel_run(k, 4, args) != OKLC_OK || oklc_device_finish(dv->dev) != OKLC_OK ||
        oklc_memory_copy_to_host(mo, res, count * 4, 0) != OKLC_OK) {
        fprintf(stderr, "%s: running %s on %s: %s\n", path, name, dv->spec, oklc_last_error());
        goto done;
    }
    ok = true;
done:
    oklc_memory_free(mx);
    oklc_memory_free(mo);
    oklc_kernel_free(k);
    free(x);
    return ok;
}

/* The first element where `a` and `b` differ, or -1; *n: how many do. */
static long differs(const uint32_t *a, const uint32_t *b, size_t count, size_t *n)
{
    long first = -1;
    *n = 0;
    for (size_t i = 0; i < count; i++)
        if (a[i] != b[i] && (*n)++ == 0)
            first = (long)i;
    return first;
}

/* ---- timing the rewrites (-T) -------------------------------------------------------------- */

enum { SAMPLES = 7, RETIME_SAMPLES = 15, SAMPLE_NS = 3000000 };

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ns per run of `reps` runs of k. */
static double sample(oklc_kernel *k, oklc_device *dev, oklc_arg *args, int reps)
{
    const double t0 = now_ns();
    for (int r = 0; r < reps; r++)
        if (oklc_kernel_run(k, 4, args) != OKLC_OK)
            return -1;
    if (oklc_device_finish(dev) != OKLC_OK)
        return -1;
    return (now_ns() - t0) / reps;
}

/* The rewritten kernel's time over the plain one's, over n samples of
 * each (at most RETIME_SAMPLES), in turn, which goes first alternating:
 * *median of the medians' ratio, *fastest of the fastest samples'; false
 * when a run failed. */
static bool time_pair(oklc_device *dev, oklc_kernel *on, oklc_kernel *off, oklc_arg *args,
                      int n, double *median, double *fastest)
{
    int reps = 1;
    for (double t; (t = sample(on, dev, args, reps)) * reps < SAMPLE_NS; reps *= 2)
        if (t < 0)
            return false;
    double a[RETIME_SAMPLES], b[RETIME_SAMPLES];
    for (int i = 0; i < n; i++) {
        if (i % 2) {
            a[i] = sample(on, dev, args, reps);
            b[i] = sample(off, dev, args, reps);
        } else {
            b[i] = sample(off, dev, args, reps);
            a[i] = sample(on, dev, args, reps);
        }
        if (a[i] < 0 || b[i] < 0)
            return false;
    }
    qsort(a, (size_t)n, sizeof *a, by_value);
    qsort(b, (size_t)n, sizeof *b, by_value);
    *median = a[n / 2] / b[n / 2];
    *fastest = a[0] / b[0];
    return true;
}

typedef struct {
    int timed, slower, bad, same;
    char *text[2][2];    /* the file translated, [serial, openmp][rewrites on, off] */
    double log_sum, worst;
    char worst_at[4400];
} Times;

/* The file translated for `backend` with the rewrites on or off (NULL
 * when it does not translate: the runtime says why). */
static char *translation(const char *path, const char *backend, bool rewrites)
{
    oklc_ctx *c = oklc_ctx_new();
    char *out = NULL;
    if (c && oklc_set_backend_name(c, backend)) {
        oklc_set_cpu_rewrites(c, rewrites);
        size_t len;
        if (oklc_transpile(c, path, 0) && oklc_output(c, &len))
            out = strdup(oklc_output(c, &len));
    }
    oklc_ctx_free(c);
    return out;
}

/* The text of function `name` in a translation ("" when not found). */
static const char *function_text(const char *text, const char *name, size_t *len)
{
    char head[64];
    snprintf(head, sizeof head, "\nvoid %s(", name);
    const char *b = text ? strstr(text, head) : NULL;
    const char *e = b ? strstr(b, "\n}\n") : NULL;
    *len = e ? (size_t)(e - b) : 0;
    return e ? b : "";
}

/* Does the kernel translate to the same function with the rewrites on and
 * off? Then it is the same code: a difference in time is the rest of the
 * library's (its layout), not a rewrite's. */
static bool unchanged(const Times *T, int dev, const char *name)
{
    size_t n1, n2;
    const char *a = function_text(T->text[dev][0], name, &n1);
    const char *b = function_text(T->text[dev][1], name, &n2);
    return n1 && n1 == n2 && !memcmp(a, b, n1);
}

/* Kernel `name` of `path` built with the rewrites on and off on `dev`:
 * the same output, and their times. */
static void time_kernel(Device *dv, int dev, const char *path, const char *name, const Desc *d,
                        int n, size_t count, Times *T)
{
    oklc_props *plain = oklc_props_new();
    oklc_kernel *on = NULL, *off = NULL;
    oklc_memory *mx = NULL, *mo = NULL;
    uint32_t *x = input(d, n), *r1 = malloc(count * 4), *r2 = malloc(count * 4);
    const int nblocks = (n + d->chunk - 1) / d->chunk;
    bool ok = plain && oklc_props_cpu_rewrites(plain, false) == OKLC_OK &&
              oklc_kernel_build(dv->dev, path, name, NULL, &on) == OKLC_OK &&
              oklc_kernel_build(dv->dev, path, name, plain, &off) == OKLC_OK &&
              oklc_memory_alloc(dv->dev, (size_t)n * 4, &mx) == OKLC_OK &&
              oklc_memory_alloc(dv->dev, count * 4, &mo) == OKLC_OK &&
              oklc_memory_copy_from_host(mx, x, (size_t)n * 4, 0) == OKLC_OK;
    oklc_arg args[] = {oklc_arg_int(n), oklc_arg_int(nblocks), oklc_arg_mem(mx),
                       oklc_arg_mem(mo)};
    for (int v = 0; ok && v < 2; v++) {
        memset(v ? r2 : r1, 0, count * 4);
        ok = oklc_memory_copy_from_host(mo, v ? r2 : r1, count * 4, 0) == OKLC_OK &&
             oklc_kernel_run(v ? off : on, 4, args) == OKLC_OK &&
             oklc_device_finish(dv->dev) == OKLC_OK &&
             oklc_memory_copy_to_host(mo, v ? r2 : r1, count * 4, 0) == OKLC_OK;
    }
    size_t ndiff = 0;
    double median = 0, fastest = 0;
    if (!ok) {
        fprintf(stderr, "%s: %s on %s: %s\n", path, name, dv->spec, oklc_last_error());
        T->bad++;
    } else if (differs(r1, r2, count, &ndiff) >= 0) {
        fprintf(stderr, "%s: %s on %s: the rewritten and the plain translation differ in "
                "%zu of %zu elements\n", path, name, dv->spec, ndiff, count);
        T->bad++;
    } else if (untimed || unchanged(T, dev, name)) {
        T->timed++;
        T->same += !untimed;
        if (verbose)
            printf("%s: %s on %s: the rewritten and the plain translation agree\n", path, name,
                   dv->spec);
    } else if (!time_pair(dv->dev, on, off, args, SAMPLES, &median, &fastest) ||
               ((median > 1.05 && fastest > 1.05) &&    /* again: a slower machine for a moment */
                !time_pair(dv->dev, on, off, args, RETIME_SAMPLES, &median, &fastest))) {
        fprintf(stderr, "%s: timing %s on %s: %s\n", path, name, dv->spec, oklc_last_error());
        T->bad++;
    } else {
        T->timed++;
        T->log_sum += log(median);
        const double both = median < fastest ? median : fastest;    /* beyond noise */
        if (both > T->worst) {
            T->worst = both;
            snprintf(T->worst_at, sizeof T->worst_at, "%s %s on %s", path, name, dv->spec);
        }
        const bool slower = median > 1.05 && fastest > 1.05;
        T->slower += slower;
        if (slower || verbose)
            printf("%s: %s on %s (N = %d): rewritten / plain time %.3f (fastest samples "
                   "%.3f)%s\n", path, name, dv->spec, n, median, fastest,
                   slower ? ": SLOWER" : "");
    }
    oklc_memory_free(mx);
    oklc_memory_free(mo);
    oklc_kernel_free(on);
    oklc_kernel_free(off);
    oklc_props_free(plain);
    free(x);
    free(r1);
    free(r2);
}

/* Writes file `seed` of `per` descriptions into `path`, runs each kernel on
 * every device and compares; the number of differences and failures. */
static int one_file(uint64_t seed, int per, const char *path, Device *devs, int ndevs,
                    Times *T)
{
    Desc *descs = calloc((size_t)per, sizeof *descs);
    int *sizes = calloc((size_t)per, sizeof *sizes);
    Text file = {0};
    put(&file, "// diff_kernels seed %llu\n\n"
               "static inline float twice_plus_f(float a) { return a * 2 + 1; }\n"
               "static inline unsigned twice_plus_u(unsigned a) { return a * 2 + 1; }\n\n",
        (unsigned long long)seed);
    rng = seed * 0x9E3779B97F4A7C15ull + 1;
    cxx_file = seed % 2 == 0;    /* even seeds: so two files in a row test both */
    for (int i = 0; i < per; i++) {
        char name[32];
        describe(&descs[i]);
        sizes[i] = 1 + (int)pick(MAX_N);
        snprintf(name, sizeof name, "d%d_okl", i);
        okl_style(&file, &descs[i], name, chance(50));
        snprintf(name, sizeof name, "d%d_cuda", i);
        cuda_style(&file, &descs[i], name);
    }
    FILE *f = fopen(path, "w");
    if (!f || fwrite(file.s, 1, file.n, f) != file.n || fclose(f)) {
        perror(path);
        exit(1);
    }
    int bad = 0;
    for (int v = 0; T && !untimed && v < ndevs; v++)
        for (int r = 0; r < 2; r++)
            T->text[v][r] = translation(path, devs[v].spec, r == 0);
    for (int i = 0; i < per; i++) {
        const Desc *d = &descs[i];
        const int nblocks = (sizes[i] + d->chunk - 1) / d->chunk;
        const size_t count = (size_t)(NSLOTS * nblocks * d->ts + nblocks + NBINS + 1);
        uint32_t *ref = malloc(count * 4), *res = malloc(count * 4);
        const char *ref_at = NULL;
        for (int style = 0; style < 2; style++) {
            char name[32];
            snprintf(name, sizeof name, "d%d_%s", i, style ? "cuda" : "okl");
            for (int v = 0; T && v < ndevs; v++)
                time_kernel(&devs[v], v, path, name, d, sizes[i], count, T);
            for (int v = 0; !T && v < ndevs; v++) {
                if (cxx_file && !strcmp(devs[v].spec, "opencl"))
                    continue;
                if (!run_one(&devs[v], path, name, d, sizes[i], ref_at ? res : ref, count)) {
                    bad++;
                    continue;
                }
                if (!ref_at) {
                    ref_at = devs[v].spec;
                    continue;
                }
                size_t n;
                long at = differs(ref, res, count, &n);
                if (at >= 0) {
                    fprintf(stderr, "%s: %s on %s differs from d%d_okl on %s (N = %d): out[%ld] "
                            "= 0x%08x, not 0x%08x (%zu of %zu elements differ)\n", path, name,
                            devs[v].spec, i, ref_at, sizes[i], at, res[at], ref[at], n, count);
                    bad++;
                } else if (verbose) {
                    printf("%s: %s on %s agrees (N = %d)\n", path, name, devs[v].spec, sizes[i]);
                }
            }
        }
        free(ref);
        free(res);
    }
    for (int i = 0; T && i < 4; i++) {
        free(T->text[i / 2][i % 2]);
        T->text[i / 2][i % 2] = NULL;
    }
    for (int i = 0; i < per; i++)
        for (int r = 0; r < MAX_REGIONS; r++)
            free(descs[i].r[r].text.s);
    free(descs);
    free(sizes);
    free(file.s);
    return bad;
}

static int usage(void)
{
    fprintf(stderr, "usage: diff_kernels [-s SEED] [-n FILES] [-k KERNELS] [-d DIR] [-S] [-T|-R] "
                    "[-v]\n");
    return 2;
}

int main(int argc, char **argv)
{
    unsigned long long seed = 1;
    int files = 3, per = 12, c;
    const char *dir = NULL;
    while ((c = getopt(argc, argv, "s:n:k:d:STRvh")) != -1) {
        switch (c) {
        case 's': seed = strtoull(optarg, NULL, 10); break;
        case 'n': files = atoi(optarg); break;
        case 'k': per = atoi(optarg); break;
        case 'd': dir = optarg; break;
        case 'S': staged = true; break;
        case 'T': timing = true; break;
        case 'R': timing = untimed = true; break;
        case 'v': verbose = true; break;
        default: return usage();
        }
    }
    if (optind != argc || files < 1 || per < 1)
        return usage();
    char tmp[4096];
    if (!dir) {
        snprintf(tmp, sizeof tmp, "%s/oklc-diff-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (!mkdtemp(tmp)) {
            perror("mkdtemp");
            return 1;
        }
        dir = tmp;
    }
    /* PoCL 3.1's default way of running a work-group computes wrong values
     * for some kernels with a private array used across barriers in a 2D
     * work-group (found here: docs/backends.md, "PoCL"); with "loops" it is
     * right, as every CPU backend is: the reference runs so, unless the
     * caller chose. (PoCL's kernel cache keeps the two apart.) */
    setenv("POCL_WORK_GROUP_METHOD", "loops", 0);
    /* OpenCL first: the reference, its work-groups run with real barriers;
     * timed: the CPU devices, OpenMP with its default threads */
    Device devs[] = {{"opencl", NULL}, {"serial", NULL}, {"mode=openmp threads=3", NULL}};
    if (timing)
        devs[0].spec = "serial", devs[1].spec = "openmp", devs[2].spec = NULL;
    int ndevs = 0;
    for (size_t i = 0; i < sizeof devs / sizeof *devs && devs[i].spec; i++) {
        if (oklc_device_open(devs[i].spec, &devs[i].dev) != OKLC_OK) {
            fprintf(stderr, "diff_kernels: no %s device (%s): left out\n", devs[i].spec,
                    oklc_last_error());
            continue;
        }
        devs[ndevs++] = devs[i];
    }
    if (ndevs < (timing ? 1 : 2)) {
        fprintf(stderr, "diff_kernels: fewer than two devices\n");
        return 1;
    }
    int bad = 0;
    Times T = {0};
    for (int f = 0; f < files; f++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/diff%llu.okl", dir, seed + (unsigned long long)f);
        const int before = T.bad + T.slower;
        int b = one_file(seed + (unsigned long long)f, per, path, devs, ndevs,
                         timing ? &T : NULL) + T.bad + T.slower - before;
        if (!b && dir == tmp)
            remove(path);
        bad += b;
    }
    for (int i = 0; i < ndevs; i++)
        oklc_device_close(devs[i].dev);
    if (!bad && dir == tmp)
        rmdir(tmp);
    if (untimed)
        printf("diff_kernels -R: %d kernel runs (%d files of %d descriptions, 2 styles, %d "
               "device(s)): the rewritten and the plain translation %s\n", T.timed, files, per,
               ndevs, T.bad ? "DIFFER (files kept)" : "agree");
    else if (timing)
        printf("diff_kernels -T: %d kernel runs (%d files of %d descriptions, 2 styles, %d "
               "device(s)), %d timed, %d with the same code both ways; rewritten / plain time: "
               "geometric mean %.3f (of the medians), worst %.3f (%s; the smaller of its "
               "medians' and fastest samples' ratios); %d slower by more than 5%%, %d failed\n",
               T.timed, files, per, ndevs, T.timed - T.same, T.same,
               T.timed > T.same ? exp(T.log_sum / (T.timed - T.same)) : 0.0, T.worst, T.worst_at,
               T.slower, T.bad);
    else
        printf("diff_kernels: %d file(s) of %d descriptions, %d device(s): %s\n", files, per,
               ndevs, bad ? "DIFFERENCES (files kept)" : "all agree");
    if (bad)
        printf("kept in %s\n", dir);
    return bad ? 1 : 0;
}
