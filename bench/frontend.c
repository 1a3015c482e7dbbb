/*
 * frontend.c - lex + preprocess + normalize throughput, in lines per second.
 *
 * usage: bench_frontend [-t SECONDS] FILE...
 * Each round runs oklc_normalize() on every file with a fresh context (what
 * a real build does); rounds repeat until the time is spent. Prints the
 * source lines per second of the whole front half, and per file.
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

/* One normalize of one file; false if the file does not normalize. */
static bool run_one(const char *path)
{
    oklc_ctx *c = oklc_ctx_new();
    bool ok = oklc_normalize(c, path, 0);
    if (!ok)
        oklc_diag_print(c, stderr, OKLC_DIAG_TEXT);
    oklc_ctx_free(c);
    return ok;
}

int main(int argc, char **argv)
{
    double budget = 2.0;
    int first = 1;
    if (argc > 2 && !strcmp(argv[1], "-t")) {
        budget = atof(argv[2]);
        first = 3;
    }
    if (first >= argc) {
        fprintf(stderr, "usage: bench_frontend [-t SECONDS] FILE...\n");
        return 2;
    }
    long total_lines = 0;
    for (int i = first; i < argc; i++) {
        long n = count_lines(argv[i]);
        if (n < 0 || !run_one(argv[i])) {
            fprintf(stderr, "bench_frontend: cannot normalize %s\n", argv[i]);
            return 1;
        }
        total_lines += n;
    }
    /* Per file: lines/s over the budget shared equally. */
    double slice = budget / (argc - first);
    printf("%-48s %8s %12s\n", "file", "lines", "lines/s");
    double all_time = 0;
    long all_lines = 0;
    for (int i = first; i < argc; i++) {
        long n = count_lines(argv[i]);
        long rounds = 0;
        double t0 = now(), t;
        do {
            run_one(argv[i]);
            rounds++;
            t = now() - t0;
        } while (t < slice);
        const char *base = strrchr(argv[i], '/');
        printf("%-48s %8ld %12.0f\n", base ? base + 1 : argv[i], n, (double)(n * rounds) / t);
        all_time += t;
        all_lines += n * rounds;
    }
    printf("%-48s %8ld %12.0f\n", "all files", total_lines, (double)all_lines / all_time);
    return 0;
}
