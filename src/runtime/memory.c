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
    [OKLC_TYPE_HALF] = {"half", 2},
};

const char *oklc_type_name(oklc_type t)
{
    return (unsigned)t < OKLC_COUNTOF(types) ? types[t].name : NULL;
}

size_t oklc_type_size(oklc_type t)
{
    return (unsigned)t < OKLC_COUNTOF(types) ? types[t].size : 0;
}

/* ---- half: binary16 is sign:1 exponent:5 (bias 15) fraction:10; float's
 * is 1:8 (bias 127):23 --------------------------------------------------------- */

/* |f| below 2^-14, as a count of 2^-24 (the subnormal unit), rounded:
 * e is float's biased exponent (a normal float's: its implicit bit is
 * added), m its fraction. */
static uint16_t subnormal_half(uint32_t e, uint32_t m)
{
    uint32_t shift = 126 - e;                   /* (m + 2^23) * 2^(e-150) / 2^-24 */
    if (shift > 24)
        return 0;                               /* under half of 2^-24 */
    m |= 0x800000;
    uint32_t h = m >> shift, rest = m & ((1u << shift) - 1), tie = 1u << (shift - 1);
    return (uint16_t)(h + (rest > tie || (rest == tie && (h & 1))));
}

uint16_t oklc_half_from_float(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t e = (x >> 23) & 0xff, m = x & 0x7fffff;
    if (e == 0xff)                              /* infinity; NaN stays a (quiet) NaN */
        return (uint16_t)(sign | 0x7c00 | (m ? 0x200 | (m >> 13) : 0));
    if (e >= 127 + 16)                          /* 2^16 and more: infinity */
        return (uint16_t)(sign | 0x7c00);
    if (e < 127 - 14)
        return (uint16_t)(sign | subnormal_half(e, m));
    uint32_t h = ((e - 127 + 15) << 10) | (m >> 13), rest = m & 0x1fff;
    /* a carry out of the fraction is the next exponent, up to infinity */
    return (uint16_t)(sign | (h + (rest > 0x1000 || (rest == 0x1000 && (h & 1)))));
}

float oklc_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, x;
    if (e == 0x1f)
        x = sign | 0x7f800000 | (m << 13);
    else if (e)
        x = sign | ((e + 127 - 15) << 23) | (m << 13);
    else if (!m)
        x = sign;
    else {                                      /* subnormal: a normal float */
        for (e = 127 - 14; !(m & 0x400); e--)
            m <<= 1;
        x = sign | (e << 23) | ((m & 0x3ff) << 13);
    }
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
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

/* Both copies: into the device's memory from src, or out of it into dst. */
static oklc_status copy(const oklc_memory *m, const void *src, void *dst, size_t bytes,
                        size_t offset, const char *call)
{
    oklc_rt_dl_enter();    /* the device's copy may call a driver */
    oklc_status st = check(m, src ? src : dst, bytes, offset, call);
    if (st || !bytes)
        return st;
    return m->dev->ops->copy(m, src, dst, bytes, offset);
}

oklc_status oklc_memory_copy_from_host(oklc_memory *m, const void *src, size_t bytes,
                                       size_t offset)
{
    return copy(m, src, NULL, bytes, offset, "oklc_memory_copy_from_host");
}

oklc_status oklc_memory_copy_to_host(const oklc_memory *m, void *dst, size_t bytes,
                                     size_t offset)
{
    return copy(m, NULL, dst, bytes, offset, "oklc_memory_copy_to_host");
}
