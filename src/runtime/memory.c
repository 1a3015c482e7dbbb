/*
 * memory.c - device memory: the checks every device needs (NULL, sizes,
 * copies within bounds), then the device's own allocation and copies;
 * typed memory knows its element type (what a template kernel's type
 * parameter is deduced from).
 */
#include <stdint.h>
#include <string.h>

#include "rt.h"

/* The element types: their names in OKL, their sizes. */
static const struct {
    const char *name;
    size_t      size;
} types[] = {
    [OKLC_TYPE_BOOL] = {"bool", 1},       [OKLC_TYPE_CHAR] = {"char", 1},
    [OKLC_TYPE_INT8] = {"signed char", 1}, [OKLC_TYPE_UINT8] = {"uchar", 1},
    [OKLC_TYPE_INT16] = {"short", 2},     [OKLC_TYPE_UINT16] = {"ushort", 2},
    [OKLC_TYPE_INT32] = {"int", 4},       [OKLC_TYPE_UINT32] = {"uint", 4},
    [OKLC_TYPE_INT64] = {"long", 8},      [OKLC_TYPE_UINT64] = {"ulong", 8},
    [OKLC_TYPE_FLOAT] = {"float", 4},     [OKLC_TYPE_DOUBLE] = {"double", 8},
    [OKLC_TYPE_INT2] = {"int2", 8},       [OKLC_TYPE_INT4] = {"int4", 16},
    [OKLC_TYPE_FLOAT2] = {"float2", 8},   [OKLC_TYPE_FLOAT4] = {"float4", 16},
    [OKLC_TYPE_DOUBLE2] = {"double2", 16}, [OKLC_TYPE_DOUBLE4] = {"double4", 32},
};

const char *oklc_type_name(oklc_type t)
{
    return (unsigned)t < OKLC_COUNTOF(types) ? types[t].name : NULL;
}

size_t oklc_type_size(oklc_type t)
{
    return (unsigned)t < OKLC_COUNTOF(types) ? types[t].size : 0;
}

oklc_status oklc_memory_alloc(oklc_device *d, size_t bytes, oklc_memory **out)
{
    oklc_rt_dl_enter();
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

oklc_status oklc_memory_alloc_typed(oklc_device *d, oklc_type type, size_t count,
                                    oklc_memory **out)
{
    size_t size = oklc_type_size(type);
    if (out)
        *out = NULL;
    if (!size)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_memory_alloc_typed: %d is no element "
                            "type (OKLC_TYPE_FLOAT, ...)", (int)type);
    if (count > (size_t)PTRDIFF_MAX / size)
        return oklc_rt_fail(OKLC_ERR_MEMORY, "cannot allocate %zu elements of %s: more than "
                            "any memory can hold", count, oklc_type_name(type));
    oklc_status st = oklc_memory_alloc(d, count * size, out);
    if (!st)
        (*out)->type = type;
    return st;
}

oklc_type oklc_memory_type(const oklc_memory *m)
{
    return m ? m->type : OKLC_TYPE_NONE;
}

void oklc_memory_free(oklc_memory *m)
{
    oklc_rt_dl_enter();
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
    oklc_rt_dl_enter();
    oklc_status st = check(m, src, bytes, offset, "oklc_memory_copy_from_host");
    if (st || !bytes)
        return st;
    return m->dev->ops->copy_in(m, src, bytes, offset);
}

oklc_status oklc_memory_copy_to_host(const oklc_memory *m, void *dst, size_t bytes,
                                     size_t offset)
{
    oklc_rt_dl_enter();
    oklc_status st = check(m, dst, bytes, offset, "oklc_memory_copy_to_host");
    if (st || !bytes)
        return st;
    return m->dev->ops->copy_out(m, dst, bytes, offset);
}
