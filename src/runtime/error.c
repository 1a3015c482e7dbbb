/*
 * error.c - the message of the last failure, one per thread, and the few
 * string helpers every runtime file uses.
 *
 * Runtime calls return an oklc_status and leave the reason here. Compiler
 * output can be long, so the message has no fixed size: a thread-local
 * pointer to it, freed when the thread ends by a destructor on the C
 * library's list of thread-exit functions (the one C++ thread_local
 * objects use). Not pthread keys: a library in a link-map namespace of its
 * own (dl.c) has a C library of its own, which hands out the same key
 * numbers for the same slots of the thread, so its keys and ours would
 * overwrite each other's values (NVIDIA's OpenCL, beside PoCL in the ICD
 * loader's namespace, then crashed at exit). ELF thread-local storage is
 * shared correctly between namespaces.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>

#include "rt.h"

/* glibc's (since 2.18) registration of a thread-exit destructor, and the
 * handle of the object registering it (from crtbegin.o) */
extern int __cxa_thread_atexit_impl(void (*fn)(void *), void *arg, void *dso);
extern void *__dso_handle;

static _Thread_local char *message;
static _Thread_local bool registered;    /* free_message is on this thread's list */

/* Only messages from oklc_malloc are stored; "out of memory" is a static
 * string returned when the stored one is NULL and the failure was OOM. */
static _Thread_local bool last_was_oom;

static void free_message(void *unused)
{
    (void)unused;
    oklc_free(message);
    message = NULL;
    registered = false;
}

static void set_message(char *msg)
{
    if (msg && !registered)
        registered = __cxa_thread_atexit_impl(free_message, NULL, &__dso_handle) == 0;
    if (!registered) {    /* it could not be freed at the thread's end */
        oklc_free(msg);
        msg = NULL;
    }
    oklc_free(message);
    message = msg;
    last_was_oom = msg == NULL;
}

const char *oklc_last_error(void)
{
    if (message)
        return message;
    return last_was_oom ? "out of memory" : "";
}

char *oklc_rt_vformat(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return NULL;
    char *s = oklc_malloc((size_t)n + 1);
    if (s)
        vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

char *oklc_rt_format(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = oklc_rt_vformat(fmt, ap);
    va_end(ap);
    return s;
}

char *oklc_rt_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = oklc_malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* The message is formatted before the old one is freed: callers may pass
 * oklc_last_error() as an argument to add context to it. */
oklc_status oklc_rt_fail(oklc_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = oklc_rt_vformat(fmt, ap);
    va_end(ap);
    set_message(msg);
    return msg ? s : OKLC_ERR_MEMORY;
}

oklc_status oklc_rt_oom(void)
{
    set_message(NULL);
    return OKLC_ERR_MEMORY;
}

const char *oklc_status_name(oklc_status s)
{
    static const char *const names[] = {
        [OKLC_OK] = "OKLC_OK",
        [OKLC_ERR_ARGUMENT] = "OKLC_ERR_ARGUMENT",
        [OKLC_ERR_UNAVAILABLE] = "OKLC_ERR_UNAVAILABLE",
        [OKLC_ERR_TRANSPILE] = "OKLC_ERR_TRANSPILE",
        [OKLC_ERR_COMPILE] = "OKLC_ERR_COMPILE",
        [OKLC_ERR_LOAD] = "OKLC_ERR_LOAD",
        [OKLC_ERR_MEMORY] = "OKLC_ERR_MEMORY",
        [OKLC_ERR_IO] = "OKLC_ERR_IO",
        [OKLC_ERR_DEVICE] = "OKLC_ERR_DEVICE",
    };
    if ((unsigned)s < OKLC_COUNTOF(names))
        return names[s];
    return "OKLC_ERR_?";
}

const char *oklc_rt_env(const char *oklc, const char *occa, const char **from)
{
    const char *v = getenv(oklc), *name = oklc;
    if (!v || !*v)
        v = getenv(occa), name = occa;
    if (!v || !*v)
        return NULL;
    if (from)
        *from = name;
    return v;
}

double oklc_rt_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

bool oklc_rt_verbose(void)
{
    const char *v = oklc_rt_env("OKLC_VERBOSE", "OCCA_VERBOSE", NULL);
    return v && *v && strcmp(v, "0") != 0;
}
