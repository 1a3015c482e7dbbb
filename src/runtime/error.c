/*
 * error.c - the message of the last failure, one per thread, and the few
 * string helpers every runtime file uses.
 *
 * Runtime calls return an oklc_status and leave the reason here. The
 * message lives in thread-specific data whose destructor frees it when the
 * thread ends; compiler output can be long, so it has no fixed size.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

static pthread_key_t message_key;
static pthread_once_t message_once = PTHREAD_ONCE_INIT;
static bool key_ok;

static void free_message(void *p)
{
    oklc_free(p);
}

static void make_key(void)
{
    key_ok = pthread_key_create(&message_key, free_message) == 0;
}

/* Only messages from oklc_malloc are stored; "out of memory" is a static
 * string returned when the stored one is NULL and the failure was OOM. */
static _Thread_local bool last_was_oom;

static void set_message(char *msg)
{
    pthread_once(&message_once, make_key);
    if (!key_ok) {
        oklc_free(msg);
        return;
    }
    oklc_free(pthread_getspecific(message_key));
    pthread_setspecific(message_key, msg);
    last_was_oom = msg == NULL;
}

const char *oklc_last_error(void)
{
    pthread_once(&message_once, make_key);
    const char *m = key_ok ? pthread_getspecific(message_key) : NULL;
    if (m)
        return m;
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

bool oklc_rt_verbose(void)
{
    const char *v = getenv("OKLC_VERBOSE");
    return v && *v && strcmp(v, "0") != 0;
}
