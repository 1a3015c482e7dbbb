/*
 * test_counts.c - oklc stats against a run: the file's kernels translated
 * for serial with counters (oklc_set_count_ops), compiled with g++, run
 * for random values of the integer parameters, and what the counters say
 * compared with what oklc_stats predicts for those values: equal where the
 * counts are exact, at most where stats says they are upper bounds. The
 * formulas stats gives without the values (piecewise in the parameters,
 * in isl's notation under "isl") are evaluated at them and compared too.
 * The footprint (`--machine`: the distinct bytes of the arrays) against the
 * bytes the run touched (each element's address through _occa_touched):
 * equal where stats left no access out, at most where it did.
 *
 * usage: test_counts [--no-run] FILE NAME=LO:HI[:STEP]... [-D MACRO]...
 * --no-run: no run; values too large to run (a GPU's grid), the numbers
 * stats gives against its formulas (the numbers of a guarded nest come
 * from isl's sums with the values in, not one iteration at a time)
 * (pointer arguments get buffers of 16 MiB of random values; the ranges
 * keep the kernels inside them)
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <isl/ctx.h>
#include <isl/options.h>
#include <isl/point.h>
#include <isl/polynomial.h>
#include <isl/space.h>
#include <isl/val.h>

#include "oklc/oklc.h"

enum { ROUNDS = 4, MAX_PARAMS = 8, MAX_ARGS = 32, BUF = 16 << 20 };

typedef struct Range3 {
    char     *name;
    long long lo, hi, step;
} Range3;

static Range3 ranges[MAX_PARAMS];
static int nranges;
static const char *defines[MAX_PARAMS];
static int ndefines;

static oklc_ctx *context(void)
{
    oklc_ctx *c = oklc_ctx_new();
    for (int i = 0; c && i < ndefines; i++)
        oklc_define(c, defines[i]);
    return c;
}

static bool report(oklc_ctx *c, bool ok)
{
    if (!ok)
        oklc_diag_print(c, stderr, OKLC_DIAG_TEXT);
    return ok;
}

/* The file for serial with counters, compiled: its handle; its metadata. */
static void *build(const char *file, const char *dir, cJSON **meta)
{
    oklc_ctx *c = context();
    oklc_set_backend(c, OKLC_BACKEND_SERIAL);
    oklc_set_count_ops(c, true);
    if (!report(c, oklc_transpile(c, file, 0)))
        return NULL;
    size_t len;
    const char *out = oklc_output(c, &len);
    char src[4096], lib[4096], cmd[9000];
    snprintf(src, sizeof src, "%s/counted.cpp", dir);
    snprintf(lib, sizeof lib, "%s/counted.so", dir);
    FILE *f = fopen(src, "w");
    if (!f || fwrite(out, 1, len, f) != len || fclose(f))
        return NULL;
    *meta = cJSON_Parse(oklc_metadata(c, &len));
    oklc_ctx_free(c);
    snprintf(cmd, sizeof cmd, "%s -std=c++17 -O1 -fPIC -shared -o %s %s",
             getenv("CXX") ? getenv("CXX") : "g++", lib, src);
    if (system(cmd)) {
        fprintf(stderr, "FAIL: %s\n", cmd);
        return NULL;
    }
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        fprintf(stderr, "FAIL: %s\n", dlerror());
    return h;
}

static isl_ctx *isl;
static int formulas;          /* counts checked against a formula */

/* The count key of kernel kj of the formulas at values p: -1 when kj
 * does not have it, -2 when a parameter is not given. */
static long long formula_at(const cJSON *kj, const char *key, const oklc_stats_param *p, int np)
{
    const cJSON *o = kj ? cJSON_GetObjectItem(kj, key) : NULL;
    const cJSON *v = o ? cJSON_GetObjectItem(o, "value") : NULL;
    const cJSON *t = o ? cJSON_GetObjectItem(o, "isl") : NULL;
    if (v || !t)
        return v ? (long long)v->valuedouble : -1;
    isl_pw_qpolynomial *f = isl_pw_qpolynomial_read_from_str(isl, t->valuestring);
    if (!f)
        return -1;
    isl_space *sp = isl_space_domain(isl_pw_qpolynomial_get_space(f));
    isl_point *pt = isl_point_zero(isl_space_copy(sp));
    bool given = true;
    for (isl_size i = 0, n = isl_space_dim(sp, isl_dim_param); i < n && given; i++) {
        const char *name = isl_space_get_dim_name(sp, isl_dim_param, (unsigned)i);
        int j = 0;
        while (j < np && strcmp(p[j].name, name))
            j++;
        given = j < np;
        if (given)
            pt = isl_point_set_coordinate_val(pt, isl_dim_param, (int)i,
                                              isl_val_int_from_si(isl, p[j].value));
    }
    isl_space_free(sp);
    if (!given) {
        isl_point_free(pt);
        isl_pw_qpolynomial_free(f);
        return -2;
    }
    isl_val *x = isl_pw_qpolynomial_eval(f, pt);
    long long r = x && isl_val_is_int(x) ? isl_val_get_num_si(x) : -1;
    isl_val_free(x);
    return r;
}

static long long value_of(const cJSON *kj, const char *key)
{
    const cJSON *o = cJSON_GetObjectItem(kj, key);
    const cJSON *v = o ? cJSON_GetObjectItem(o, "value") : NULL;
    return v ? (long long)v->valuedouble : -1;
}

/* What stats predicts for kernel `name` at these values (NULL: nothing);
 * the footprint too with `machine`. */
static cJSON *predicted(const char *file, const oklc_stats_param *p, int np, const char *name,
                        bool machine, cJSON **root)
{
    oklc_ctx *c = context();
    oklc_stats_options o = {p, (size_t)np, machine ? 1e12 : 0, machine ? 1e12 : 0, true};
    if (!report(c, oklc_stats(c, file, &o)))
        return NULL;
    size_t len;
    *root = cJSON_Parse(oklc_output(c, &len));
    oklc_ctx_free(c);
    const cJSON *k;
    cJSON_ArrayForEach(k, cJSON_GetObjectItem(*root, "kernels"))
        if (!strcmp(cJSON_GetObjectItem(k, "name")->valuestring, name))
            return (cJSON *)k;
    return NULL;
}

static void fill(unsigned char *buf, const char *element)
{
    if (strstr(element, "double"))
        for (size_t i = 0; i < BUF / sizeof(double); i++)
            ((double *)buf)[i] = rand() / (double)RAND_MAX - 0.5;
    else if (strstr(element, "float"))
        for (size_t i = 0; i < BUF / sizeof(float); i++)
            ((float *)buf)[i] = (float)(rand() / (double)RAND_MAX - 0.5);
    else
        for (size_t i = 0; i < BUF; i++)
            buf[i] = (unsigned char)rand();
}

/* One run of kernel kj with values p; false on a mismatch. */
/* The counts compared, and the counters that count them. */
static const struct { const char *key, *key2; int counter; } cmp[] = {
    {"flop_total", NULL, OKLC_COUNT_FLOPS},
    {"global_loads", NULL, OKLC_COUNT_GLOBAL_LOADS},
    {"global_load_bytes", NULL, OKLC_COUNT_GLOBAL_LOAD_BYTES},
    {"global_stores", NULL, OKLC_COUNT_GLOBAL_STORES},
    {"global_store_bytes", NULL, OKLC_COUNT_GLOBAL_STORE_BYTES},
    {"shared_loads", NULL, OKLC_COUNT_SHARED_LOADS},
    {"shared_stores", NULL, OKLC_COUNT_SHARED_STORES},
    {"global_atomics", "shared_atomics", OKLC_COUNT_ATOMICS},
    {"blocks", NULL, -1},
    {"threads", NULL, -1},
};
enum { NCMP = sizeof cmp / sizeof cmp[0] };

/* Random values of the parameters, in their ranges. */
static void draw(oklc_stats_param *p)
{
    for (int i = 0; i < nranges; i++) {
        long long steps = (ranges[i].hi - ranges[i].lo) / ranges[i].step + 1;
        p[i] = (oklc_stats_param){ranges[i].name,
                                  ranges[i].lo + ranges[i].step * (rand() % steps)};
    }
}

/* --no-run: sizes too large to run (a GPU's grid). The numbers stats gives
 * with the values against its formulas at them, kernel by kernel. */
static bool numbers_only(const char *file)
{
    cJSON *all = NULL;
    oklc_ctx *c = context();
    oklc_stats_options o = {NULL, 0, 0, 0, true};
    bool ok = report(c, oklc_stats(c, file, &o));
    size_t len;
    all = ok ? cJSON_Parse(oklc_output(c, &len)) : NULL;
    oklc_ctx_free(c);
    int checked = 0;
    const cJSON *fk;
    cJSON_ArrayForEach(fk, cJSON_GetObjectItem(all, "kernels")) {
        const char *name = cJSON_GetObjectItem(fk, "name")->valuestring;
        for (int round = 0; round < 2 && !cJSON_GetObjectItem(fk, "not_counted"); round++) {
            oklc_stats_param p[MAX_PARAMS];
            draw(p);
            cJSON *root = NULL;
            const cJSON *s = predicted(file, p, nranges, name, false, &root);
            bool same = s && !cJSON_GetObjectItem(s, "not_counted");
            printf("%s", name);
            for (int i = 0; i < nranges; i++)
                printf(" %s=%lld", p[i].name, p[i].value);
            for (int i = 0; same && i < NCMP; i++) {
                long long want = value_of(s, cmp[i].key), f = formula_at(fk, cmp[i].key, p, nranges);
                printf(" %s %lld/%lld", cmp[i].key, want, f);
                /* cJSON reads a number as a double: exact to 2^53 */
                same &= want < (1LL << 53) ? f == want : (double)f == (double)want;
            }
            printf(same ? "\n" : "\nFAIL: the numbers and the formulas differ\n");
            ok &= same;
            checked++;
            cJSON_Delete(root);
        }
    }
    cJSON_Delete(all);
    printf("%d values checked against the formulas\n", checked);
    return ok && checked;
}

/* The bytes of the argument buffers a run touched: a bit a byte. */
static struct {
    uintptr_t      at[MAX_ARGS];
    unsigned char *seen[MAX_ARGS];
    int            n;
    long long      bytes, outside;
} touch;

static void touched(const void *p, unsigned long size)
{
    uintptr_t q = (uintptr_t)p;
    for (int b = 0; b < touch.n; b++) {
        if (!touch.seen[b] || q < touch.at[b] || q + size > touch.at[b] + BUF)
            continue;
        for (size_t off = q - touch.at[b], end = off + size; off < end; off++)
            if (!(touch.seen[b][off / 8] >> (off % 8) & 1)) {
                touch.seen[b][off / 8] |= (unsigned char)(1u << (off % 8));
                touch.bytes++;
            }
        return;
    }
    touch.outside++;
}

/* The footprint stats gives against the bytes the run touched. */
static bool footprint(const cJSON *s)
{
    const cJSON *rj = cJSON_GetObjectItem(s, "roofline");
    long long want = rj ? value_of(rj, "footprint_bytes") : -1;
    bool part = rj && cJSON_GetObjectItem(rj, "footprint_left_out");
    bool same = want >= 0 && !touch.outside && (part ? want <= touch.bytes : want == touch.bytes);
    printf(" footprint %lld/%lld%s%s", touch.bytes, want, part ? " (at least)" : "",
           same ? "" : " MISMATCH");
    return same;
}

static bool check(void *h, const char *file, const cJSON *kj, const cJSON *fk,
                  oklc_stats_param *p, int np)
{
    const char *name = cJSON_GetObjectItem(kj, "name")->valuestring;
    int (*entry)(void *const *, char *, size_t);
    void *sym = dlsym(h, cJSON_GetObjectItem(kj, "entry")->valuestring);
    memcpy(&entry, &sym, sizeof entry);     /* POSIX: a function's address as data */
    unsigned long long *counts = dlsym(h, "_occa_counts");
    void (**hook)(const void *, unsigned long) = dlsym(h, "_occa_touched");
    if (!entry || !counts || !hook) {
        fprintf(stderr, "FAIL: %s: no entry or counters\n", name);
        return false;
    }
    void *args[MAX_ARGS];
    union { long long i; double d; float f; void *p; } vals[MAX_ARGS];
    unsigned char *bufs[MAX_ARGS] = {0};
    int n = 0;
    const cJSON *a;
    cJSON_ArrayForEach(a, cJSON_GetObjectItem(kj, "arguments")) {
        const char *kind = cJSON_GetObjectItem(a, "kind")->valuestring;
        const char *an = cJSON_GetObjectItem(a, "name")->valuestring;
        memset(&vals[n], 0, sizeof vals[n]);
        if (!strcmp(kind, "memory")) {
            bufs[n] = malloc(BUF);
            fill(bufs[n], cJSON_GetObjectItem(a, "element")->valuestring);
            vals[n].p = bufs[n];
            touch.at[n] = (uintptr_t)bufs[n];
            touch.seen[n] = calloc(BUF / 8, 1);
        } else if (!strcmp(kind, "float")) {
            if (cJSON_GetObjectItem(a, "size")->valueint == 4)
                vals[n].f = 1.5f;
            else
                vals[n].d = 1.5;
        } else {
            for (int i = 0; i < np; i++)
                if (!strcmp(p[i].name, an))
                    vals[n].i = p[i].value;     /* little-endian: an int reads the low half */
        }
        args[n] = &vals[n];
        n++;
    }
    memset(counts, 0, OKLC_COUNT_N * sizeof *counts);
    touch.n = n, touch.bytes = touch.outside = 0;
    *hook = touched;
    char msg[256] = "";
    int rc = entry(args, msg, sizeof msg);
    for (int i = 0; i < n; i++) {
        free(bufs[i]);
        free(touch.seen[i]);
        touch.seen[i] = NULL;
    }
    if (rc) {
        fprintf(stderr, "FAIL: %s: the run failed: %s\n", name, msg);
        return false;
    }
    cJSON *root = NULL;
    const cJSON *s = predicted(file, p, np, name, true, &root);
    bool ok = s && !cJSON_GetObjectItem(s, "not_counted");
    bool exact = ok && cJSON_IsTrue(cJSON_GetObjectItem(s, "exact"));
    printf("%s", name);
    for (int i = 0; i < np; i++)
        printf(" %s=%lld", p[i].name, p[i].value);
    printf(exact ? ":" : " (at most):");
    for (size_t i = 0; ok && i < NCMP && cmp[i].counter >= 0; i++) {
        long long want = value_of(s, cmp[i].key) + (cmp[i].key2 ? value_of(s, cmp[i].key2) : 0);
        long long got = (long long)counts[cmp[i].counter];
        bool same = exact ? got == want : got <= want;
        printf(" %s %lld/%lld%s", cmp[i].key, got, want, same ? "" : " MISMATCH");
        ok &= same;
        /* the formula at these values: the same as the numbers */
        long long f = formula_at(fk, cmp[i].key, p, np);
        if (f >= 0 && cmp[i].key2) {
            long long g = formula_at(fk, cmp[i].key2, p, np);
            f = g >= 0 ? f + g : -1;
        }
        if (f >= 0) {
            formulas++;
            if (f != want)
                printf(" FORMULA %lld", f);
            ok &= f == want;
        }
    }
    ok = ok && footprint(s);
    printf(ok ? "\n" : "\nFAIL: %s\n", s ? "the run and stats differ" : "stats has no counts");
    cJSON_Delete(root);
    return ok;
}

int main(int argc, char **argv)
{
    bool run = argc < 2 || strcmp(argv[1], "--no-run");
    if (!run)
        argv++, argc--;
    if (argc < 2) {
        fprintf(stderr, "usage: test_counts [--no-run] FILE NAME=LO:HI[:STEP]... [-D MACRO]...\n");
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "-D") && i + 1 < argc && ndefines < MAX_PARAMS) {
            defines[ndefines++] = argv[++i];
            continue;
        }
        char *eq = strchr(argv[i], '=');
        Range3 *r = &ranges[nranges];
        r->step = 1;
        if (!eq || nranges == MAX_PARAMS ||
            sscanf(eq + 1, "%lld:%lld:%lld", &r->lo, &r->hi, &r->step) < 2 || r->step < 1) {
            fprintf(stderr, "test_counts: bad range '%s'\n", argv[i]);
            return 2;
        }
        r->name = strndup(argv[i], (size_t)(eq - argv[i]));
        nranges++;
    }
    srand(1234);
    if (!run) {
        isl = isl_ctx_alloc();
        isl_options_set_on_error(isl, ISL_ON_ERROR_CONTINUE);
        bool ok = numbers_only(argv[1]);
        isl_ctx_free(isl);
        return ok ? 0 : 1;
    }
    char dir[] = "/tmp/oklc-counts-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    cJSON *meta = NULL;
    void *h = build(argv[1], dir, &meta);
    bool ok = h && meta;
    int checked = 0;
    const cJSON *kj;
    cJSON *kernels = h && meta ? cJSON_GetObjectItem(meta, "kernels") : NULL;
    isl = isl_ctx_alloc();
    isl_options_set_on_error(isl, ISL_ON_ERROR_CONTINUE);
    cJSON_ArrayForEach(kj, kernels) {
        cJSON *froot = NULL;
        const cJSON *fk = predicted(argv[1], NULL, 0,
                                    cJSON_GetObjectItem(kj, "name")->valuestring, false, &froot);
        for (int round = 0; round < ROUNDS; round++) {
            oklc_stats_param p[MAX_PARAMS];
            draw(p);
            ok &= check(h, argv[1], kj, fk, p, nranges);
            checked++;
        }
        cJSON_Delete(froot);
    }
    isl_ctx_free(isl);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd))
        ok = false;
    printf("%d runs checked, %d counts against a formula too\n", checked, formulas);
    cJSON_Delete(meta);
    return ok && checked ? 0 : 1;
}
