/*
 * memory.c - device memory: the checks every device needs (NULL, sizes,
 * copies within bounds), then the device's own allocation and copies.
 */
#include <stdint.h>
#include <string.h>

#include "rt.h"

oklc_status oklc_memory_alloc(oklc_device *d, size_t bytes, oklc_memory **out)
{
    if (!d || !out)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_memory_alloc: NULL %s",
                            d ? "out" : "device");
    *out = NULL;
    /* no allocator can give more; a negative size cast to size_t lands here */
    if (bytes > (size_t)PTRDIFF_MAX)
        return oklc_rt_fail(OKLC_ERR_MEMORY, "cannot allocate %zu bytes: more than any "
                            "memory can hold", bytes);
    oklc_memory *m = oklc_malloc(sizeof *m);
    if (!m)
        return oklc_rt_oom();
    *m = (oklc_memory){.dev = d, .size = bytes};
    oklc_status st = d->ops->alloc(d, bytes, &m->ptr);
    if (st) {
        oklc_free(m);
        return st;
    }
    *out = m;
    return OKLC_OK;
}

void oklc_memory_free(oklc_memory *m)
{
    if (!m)
        return;
    m->dev->ops->free(m->dev, m->ptr);
    oklc_free(m);
}

size_t oklc_memory_size(const oklc_memory *m)
{
    return m ? m->size : 0;
}

/* Written so that offset + bytes cannot overflow. */
static oklc_status check(const oklc_memory *m, const void *host, size_t bytes, size_t offset,
                         const char *call)
{
    if (!m || (!host && bytes))
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "%s: the %s is NULL", call,
                            m ? "host pointer" : "memory");
    if (offset > m->size || bytes > m->size - offset)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT,
                            "%s: %zu bytes at offset %zu go past the end of the memory "
                            "(%zu bytes)", call, bytes, offset, m->size);
    return OKLC_OK;
}

oklc_status oklc_memory_copy_from_host(oklc_memory *m, const void *src, size_t bytes,
                                       size_t offset)
{
    oklc_status st = check(m, src, bytes, offset, "oklc_memory_copy_from_host");
    if (st || !bytes)
        return st;
    return m->dev->ops->copy_in(m, src, bytes, offset);
}

oklc_status oklc_memory_copy_to_host(const oklc_memory *m, void *dst, size_t bytes,
                                     size_t offset)
{
    oklc_status st = check(m, dst, bytes, offset, "oklc_memory_copy_to_host");
    if (st || !bytes)
        return st;
    return m->dev->ops->copy_out(m, dst, bytes, offset);
}
