/*
 * memory.c - device memory: the checks every device needs (NULL, sizes,
 * copies within bounds), then the device's own allocation and copies;
 * typed memory knows its element type (what a template kernel's type
 * parameter is deduced from).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    *m = (oklc_memory){.dev = d, .size = bytes, .refs = 1};
    oklc_status st = d->ops->alloc(d, bytes, &m->ptr);
    if (st) {
        oklc_free(m);
        return st;
    }
    __atomic_fetch_add(&d->used, bytes, __ATOMIC_RELAXED);
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

/* One holder of a root fewer: the last frees its storage. */
static void drop(oklc_memory *root)
{
    if (__atomic_sub_fetch(&root->refs, 1, __ATOMIC_ACQ_REL))
        return;
    oklc_device *d = root->dev;
    if (!root->wrapped) {
        d->ops->free(d, root->ptr);
        __atomic_fetch_sub(&d->used, root->size, __ATOMIC_RELAXED);
    }
    oklc_free(root);
}

void oklc_memory_free(oklc_memory *m)
{
    oklc_rt_dl_enter();
    if (!m)
        return;
    if (!m->root) {
        drop(m);
        return;
    }
    if (m->release)
        m->release(m);
    if (m->dev->ops->unview && m->ptr)
        m->dev->ops->unview(m->dev, m->ptr);
    oklc_memory *root = m->root;
    oklc_free(m);
    drop(root);
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

/* Both copies: into the device's memory from src, or out of it into dst;
 * in the current stream, waited for when `wait`. */
static oklc_status copy(const oklc_memory *m, const void *src, void *dst, size_t bytes,
                        size_t offset, bool wait, const char *call)
{
    oklc_rt_dl_enter();    /* the device's copy may call a driver */
    oklc_status st = check(m, src ? src : dst, bytes, offset, call);
    if (st || !bytes)
        return st;
    return m->dev->ops->copy(m, src, dst, bytes, offset, wait);
}

oklc_status oklc_memory_copy_from_host(oklc_memory *m, const void *src, size_t bytes,
                                       size_t offset)
{
    return copy(m, src, NULL, bytes, offset, true, "oklc_memory_copy_from_host");
}

oklc_status oklc_memory_copy_to_host(const oklc_memory *m, void *dst, size_t bytes,
                                     size_t offset)
{
    return copy(m, NULL, dst, bytes, offset, true, "oklc_memory_copy_to_host");
}

oklc_status oklc_memory_copy_from_host_async(oklc_memory *m, const void *src, size_t bytes,
                                             size_t offset)
{
    return copy(m, src, NULL, bytes, offset, false, "oklc_memory_copy_from_host_async");
}

oklc_status oklc_memory_copy_to_host_async(const oklc_memory *m, void *dst, size_t bytes,
                                           size_t offset)
{
    return copy(m, NULL, dst, bytes, offset, false, "oklc_memory_copy_to_host_async");
}

/* ---- views, copies between memories, addresses ----------------------------------------- */

oklc_status oklc_memory_view(oklc_memory *m, size_t offset, size_t bytes, oklc_memory **out)
{
    oklc_rt_dl_enter();
    if (!m || !out)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_memory_view: NULL %s", m ? "out" : "memory");
    *out = NULL;
    if (offset > m->size || bytes > m->size - offset)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_memory_view: %zu bytes at offset %zu go "
                            "past the end of the memory (%zu bytes)", bytes, offset, m->size);
    size_t unit = oklc_type_size(m->type);
    if (unit > 1 && (offset % unit || bytes % unit))
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_memory_view: %zu bytes at offset %zu are "
                            "not whole elements of the memory's type %s (%zu bytes each)",
                            bytes, offset, oklc_type_name(m->type), unit);
    oklc_memory *root = m->root ? m->root : m;
    oklc_device *d = m->dev;
    size_t at = m->offset + offset;
    if (d->view_align > 1 && at % d->view_align)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_memory_view: offset %zu (%zu in its "
                            "allocation) is not a multiple of the %s device's base address "
                            "alignment, %zu bytes", offset, at, d->ops->title, d->view_align);
    oklc_memory *v = oklc_malloc(sizeof *v);
    if (!v)
        return oklc_rt_oom();
    *v = (oklc_memory){.dev = d, .size = bytes, .type = m->type, .root = root, .offset = at};
    oklc_status st = OKLC_OK;
    if (d->ops->view)
        st = d->ops->view(root, at, bytes, &v->ptr);
    else
        v->ptr = (void *)((uintptr_t)root->ptr + at);    /* a CUdeviceptr is a number */
    if (st) {
        oklc_free(v);
        return st;
    }
    __atomic_fetch_add(&root->refs, 1, __ATOMIC_RELAXED);
    *out = v;
    return OKLC_OK;
}

static bool host_memory(const oklc_device *d)
{
    return d->ops->backend == OKLC_BACKEND_SERIAL || d->ops->backend == OKLC_BACKEND_OPENMP;
}

/* Do the two regions share a byte? Views of one root compare offsets;
 * other memory its addresses, where they are addresses (not cl_mem). */
static bool overlap(const oklc_memory *a, size_t ao, const oklc_memory *b, size_t bo,
                    size_t bytes)
{
    const oklc_memory *ra = a->root ? a->root : a, *rb = b->root ? b->root : b;
    uintptr_t x, y;
    if (ra == rb)
        x = a->offset + ao, y = b->offset + bo;
    else if (a->dev->ops->view || b->dev->ops->view)
        return false;
    else
        x = (uintptr_t)a->ptr + ao, y = (uintptr_t)b->ptr + bo;
    return x < y + bytes && y < x + bytes;
}

static oklc_status check_memory(const oklc_memory *m, size_t offset, size_t bytes,
                                const char *what)
{
    if (offset > m->size || bytes > m->size - offset)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_memory_copy: %zu bytes at offset %zu go "
                            "past the end of the %s (%zu bytes)", bytes, offset, what, m->size);
    return OKLC_OK;
}

oklc_status oklc_memory_copy(oklc_memory *dst, size_t dst_offset, const oklc_memory *src,
                             size_t src_offset, size_t bytes)
{
    oklc_rt_dl_enter();
    if (!dst || !src)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_memory_copy: the %s is NULL",
                            dst ? "source" : "destination");
    oklc_status st = check_memory(src, src_offset, bytes, "source");
    if (!st)
        st = check_memory(dst, dst_offset, bytes, "destination");
    if (st || !bytes)
        return st;
    if (src->dev != dst->dev && !(host_memory(src->dev) && host_memory(dst->dev)))
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_memory_copy: the source is memory of "
                            "the %s device '%s', the destination of the %s device '%s': copy "
                            "between devices through the host", src->dev->ops->title,
                            src->dev->label ? src->dev->label : src->dev->ops->name,
                            dst->dev->ops->title,
                            dst->dev->label ? dst->dev->label : dst->dev->ops->name);
    if (overlap(dst, dst_offset, src, src_offset, bytes))
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_memory_copy: the %zu bytes at offset %zu "
                            "of the source and at offset %zu of the destination overlap in "
                            "one allocation", bytes, src_offset, dst_offset);
    /* after the work of the current streams (the copy runs outside them) */
    st = dst->dev->current ? oklc_stream_finish(dst->dev, dst->dev->current) : OKLC_OK;
    if (!st && src->dev != dst->dev && src->dev->current)
        st = oklc_stream_finish(src->dev, src->dev->current);
    if (st)
        return st;
    if (src->dev != dst->dev) {       /* two CPU devices: host memory both */
        memcpy((char *)dst->ptr + dst_offset, (const char *)src->ptr + src_offset, bytes);
        return OKLC_OK;
    }
    return dst->dev->ops->copy_device(dst, dst_offset, src, src_offset, bytes);
}

void *oklc_memory_ptr(const oklc_memory *m)
{
    return m ? m->ptr : NULL;
}

oklc_status oklc_memory_wrap(oklc_device *d, void *ptr, size_t bytes, oklc_memory **out)
{
    if (!d || !out || !ptr)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_memory_wrap: NULL %s",
                            !d ? "device" : !out ? "out" : "address");
    *out = NULL;
    oklc_memory *m = oklc_malloc(sizeof *m);
    if (!m)
        return oklc_rt_oom();
    *m = (oklc_memory){.dev = d, .ptr = ptr, .size = bytes, .refs = 1, .wrapped = true};
    *out = m;
    return OKLC_OK;
}

size_t oklc_device_memory_used(const oklc_device *d)
{
    return d ? __atomic_load_n(&d->used, __ATOMIC_RELAXED) : 0;
}

/* ---- host memory ------------------------------------------------------------------------ */

oklc_status oklc_host_alloc(oklc_device *d, size_t bytes, void **out)
{
    oklc_rt_dl_enter();
    if (!d || !out)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_host_alloc: NULL %s", d ? "out" : "device");
    *out = NULL;
    if (bytes > (size_t)PTRDIFF_MAX)
        return oklc_rt_fail(OKLC_ERR_MEMORY, "cannot allocate %zu bytes: more than any "
                            "memory can hold", bytes);
    if (d->ops->host_alloc)
        return d->ops->host_alloc(d, bytes, out);
    long page = sysconf(_SC_PAGESIZE);
    if (posix_memalign(out, page > 0 ? (size_t)page : 4096, bytes ? bytes : 1)) {
        *out = NULL;
        return oklc_rt_fail(OKLC_ERR_MEMORY, "cannot allocate %zu bytes of host memory", bytes);
    }
    return OKLC_OK;
}

void oklc_host_free(oklc_device *d, void *ptr)
{
    oklc_rt_dl_enter();
    if (!d || !ptr)
        return;
    if (d->ops->host_free)
        d->ops->host_free(d, ptr);
    else
        free(ptr);
}
