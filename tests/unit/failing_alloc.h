/*
 * failing_alloc.h - an allocation hook whose n-th allocation fails, as Lua's
 * ltests.c swaps in debug_realloc: a test runs its work again with n = 1,
 * 2, ... until it succeeds, and each run must end cleanly. Static: one copy
 * per test program (test_api.c, test_runtime.c, test_runtime_gpu.c).
 */
#ifndef OKLC_TEST_FAILING_ALLOC_H
#define OKLC_TEST_FAILING_ALLOC_H

#include <stdlib.h>

#include "oklc/oklc.h"

static long alloc_count, fail_at;

static void *failing_alloc(void *ptr, size_t size, void *user)
{
    (void)user;
    if (size == 0) {
        free(ptr);
        return NULL;
    }
    if (++alloc_count == fail_at)
        return NULL;
    return realloc(ptr, size);
}

/* From now on the n-th allocation fails, until oklc_set_alloc_hook(NULL,
 * NULL) puts the default back. */
static void fail_allocation(long n)
{
    alloc_count = 0;
    fail_at = n;
    oklc_set_alloc_hook(failing_alloc, NULL);
}

#endif
