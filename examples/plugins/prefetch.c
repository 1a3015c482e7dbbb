/*
 * prefetch.c - an attribute plugin: @prefetch(ptr) before a statement or
 * a loop asks the target to fetch what ptr points to into the cache.
 *
 *   serial, openmp:   __builtin_prefetch(ptr);
 *   cuda, hip:        nothing (their caches are the hardware's business)
 *   other backends:   nothing
 *
 * The check refuses an argument that is a number ("@prefetch(0)"): it
 * must be a pointer expression.
 *
 *   oklc transpile --plugin build/examples/plugins/libokl_prefetch.so -b serial k.okl
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "oklc/plugin.h"

OKLC_PLUGIN_ABI;

static const oklc_plugin_host *host;

static int check(void *user, oklc_plugin_call *call, const oklc_attr_view *a)
{
    (void)user;
    if (isdigit((unsigned char)a->args[0][0])) {
        host->report(call, OKLC_ERROR, a->pos.offset,
                     "'@prefetch' needs a pointer, not a number");
        return 1;
    }
    return 0;
}

static const char *emit(void *user, oklc_plugin_call *call, const oklc_attr_view *a)
{
    static _Thread_local char line[1024];
    (void)user;
    const char *base = host->backend(call, 1);
    if (!base || (strcmp(base, "serial") && strcmp(base, "openmp")))
        return NULL;
    snprintf(line, sizeof line, "__builtin_prefetch(%s);", a->args[0]);
    return line;
}

OKLC_PLUGIN_EXPORT int oklc_plugin_init(const oklc_plugin_host *h, oklc_plugin_call *call)
{
    host = h;
    oklc_plugin_attr a = {
        .name = "prefetch",
        .min_args = 1,
        .max_args = 1,
        .on = OKLC_ON_STMT | OKLC_ON_LOOP,
        .check = check,
        .emit = emit,
    };
    return h->add_attribute(call, &a);
}
