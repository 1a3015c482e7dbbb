/*
 * util.h - what the benchmark programs of this folder (bench.c, launch.c)
 * share: failing with a message, checking a status, a monotonic clock.
 * Each defines BENCH_NAME (its name in messages) before including it.
 */
#ifndef OKLC_BENCH_UTIL_H
#define OKLC_BENCH_UTIL_H
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "oklc/runtime.h"

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(BENCH_NAME ": ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

static void check(oklc_status st, const char *what)
{
    if (st != OKLC_OK)
        die("%s: %s: %s", what, oklc_status_name(st), oklc_last_error());
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

#endif
