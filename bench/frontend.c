/*
 * frontend.c - the front end's speed, in process.
 *
 * usage: bench_frontend [-t SECONDS] [-m normalize|check] FILE...
 * Each run processes one file with a fresh context (what a real build
 * does): oklc_normalize() (lex + preprocess + normalize) or oklc_check()
 * (that, plus the Clang parse, the model and the checks). Runs repeat until
 * the time is spent. Prints, per file and for all, the lines per second
 * and the median milliseconds per run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oklc/oklc.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long count_lines(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    long n = 0;
    int ch, last = '\n';
    while ((ch = fgetc(f)) != EOF) {
        n += ch == '\n';
        last = ch;
    }
    fclose(f);
    return n + (last != '\n');
}

static bool check_mode;

/* One run on one file; false if the file does not go through. */
static bool run_one(const char *path)
{
    oklc_ctx *c = oklc_ctx_new();
    bool ok = check_mode ? oklc_check(c, path, 0) : oklc_normalize(c, path, 0);
    if (!ok)
        oklc_diag_print(c, stderr, OKLC_DIAG_TEXT);
    oklc_ctx_free(c);
    return ok;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    double budget = 2.0;
    int first = 1;
    while (first + 1 < argc && argv[first][0] == '-') {
        if (!strcmp(argv[first], "-t"))
            budget = atof(argv[first + 1]);
        else if (!strcmp(argv[first], "-m"))
            check_mode = !strcmp(argv[first + 1], "check");
        first += 2;
    }
    if (first >= argc) {
        fprintf(stderr, "usage: bench_frontend [-t SECONDS] [-m normalize|check] FILE...\n");
        return 2;
    }
    for (int i = first; i < argc; i++)
        if (count_lines(argv[i]) < 0 || !run_one(argv[i])) {
            fprintf(stderr, "bench_frontend: cannot process %s\n", argv[i]);
            return 1;
        }
    double slice = budget / (argc - first), all_time = 0;
    long all_lines = 0, total_lines = 0;
    printf("%-44s %7s %11s %10s\n", "file", "lines", "lines/s", "median ms");
    for (int i = first; i < argc; i++) {
        long n = count_lines(argv[i]), rounds = 0, cap = 1024;
        double *times = malloc((size_t)cap * sizeof *times), t0 = now(), t;
        do {
            double s = now();
            run_one(argv[i]);
            if (rounds == cap)
                times = realloc(times, (size_t)(cap *= 2) * sizeof *times);
            times[rounds++] = now() - s;
            t = now() - t0;
        } while (t < slice || rounds < 3);
        qsort(times, (size_t)rounds, sizeof *times, by_value);
        const char *base = strrchr(argv[i], '/');
        printf("%-44s %7ld %11.0f %10.2f\n", base ? base + 1 : argv[i], n,
               (double)(n * rounds) / t, times[rounds / 2] * 1e3);
        free(times);
        all_time += t;
        all_lines += n * rounds;
        total_lines += n;
    }
    printf("%-44s %7ld %11.0f\n", "all files", total_lines, (double)all_lines / all_time);
    return 0;
}
