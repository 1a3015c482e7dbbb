/*
 * pool.c - a memory pool: one allocation handed out as views (OCCA's
 * memory pool, nekRS's scratch space). The free space is a list of ranges
 * sorted by offset; a reservation takes the first range that fits, a
 * release puts its range back and merges it with its neighbours. The
 * pool's struct lives until it is freed and its last reservation is.
 */
#include <pthread.h>
#include <string.h>

#include "rt.h"

typedef struct Range {
    size_t at, bytes;
} Range;

struct oklc_pool {
    oklc_memory    *whole;
    size_t          size, align, used;    /* used: read without the lock (atomic) */
    Range          *free;      /* sorted by offset, none adjacent */
    size_t          nfree, cap;
    int             refs;      /* 1 until oklc_pool_free, plus one a reservation */
    pthread_mutex_t lock;
};

enum { POOL_ALIGN = 256 };

oklc_status oklc_pool_new(oklc_device *d, size_t bytes, oklc_pool **out)
{
    if (!d || !out)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_pool_new: NULL %s", d ? "out" : "device");
    *out = NULL;
    oklc_pool *p = oklc_malloc(sizeof *p);
    Range *r = oklc_malloc(sizeof *r);
    if (!p || !r) {
        oklc_free(p), oklc_free(r);
        return oklc_rt_oom();
    }
    *p = (oklc_pool){.size = bytes, .align = d->view_align > POOL_ALIGN ? d->view_align : POOL_ALIGN,
                     .free = r, .nfree = bytes ? 1 : 0, .cap = 1, .refs = 1};
    *r = (Range){0, bytes};
    oklc_status st = oklc_memory_alloc(d, bytes, &p->whole);
    if (st) {
        oklc_free(p), oklc_free(r);
        return st;
    }
    pthread_mutex_init(&p->lock, NULL);
    *out = p;
    return OKLC_OK;
}

static void unref(oklc_pool *p)
{
    if (__atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL))
        return;
    pthread_mutex_destroy(&p->lock);
    oklc_free(p->free);
    oklc_free(p);
}

void oklc_pool_free(oklc_pool *p)
{
    if (!p)
        return;
    oklc_memory_free(p->whole);    /* its views keep the storage */
    unref(p);
}

size_t oklc_pool_used(const oklc_pool *p)
{
    return p ? __atomic_load_n(&p->used, __ATOMIC_RELAXED) : 0;
}

size_t oklc_pool_size(const oklc_pool *p)
{
    return p ? p->size : 0;
}

/* The bytes a reservation of `bytes` at `at` takes: whole alignment units,
 * or up to the pool's end (where the last range may be shorter). */
static size_t span(const oklc_pool *p, size_t at, size_t bytes)
{
    size_t left = p->size - at, units = bytes / p->align + (bytes % p->align != 0);
    return units > left / p->align ? left : units * p->align;
}

/* The first free range that holds `bytes` from an aligned start; its index,
 * or nfree. */
static size_t first_fit(const oklc_pool *p, size_t bytes, size_t *start)
{
    for (size_t i = 0; i < p->nfree; i++) {
        size_t at = (p->free[i].at + p->align - 1) / p->align * p->align;
        size_t end = p->free[i].at + p->free[i].bytes;
        if (at <= end && bytes <= end - at) {
            *start = at;
            return i;
        }
    }
    return p->nfree;
}

/* Takes [at, at + bytes) out of free range i: what is left before and
 * after it stays free. */
static bool take(oklc_pool *p, size_t i, size_t at, size_t bytes)
{
    Range r = p->free[i];
    Range before = {r.at, at - r.at}, after = {at + bytes, r.at + r.bytes - at - bytes};
    if (before.bytes && after.bytes) {
        if (p->nfree == p->cap) {
            Range *bigger = oklc_realloc(p->free, 2 * p->cap * sizeof *bigger);
            if (!bigger)
                return false;
            p->free = bigger, p->cap *= 2;
        }
        memmove(&p->free[i + 2], &p->free[i + 1], (p->nfree - i - 1) * sizeof *p->free);
        p->free[i] = before, p->free[i + 1] = after;
        p->nfree++;
    } else if (before.bytes || after.bytes) {
        p->free[i] = before.bytes ? before : after;
    } else {
        memmove(&p->free[i], &p->free[i + 1], (p->nfree - i - 1) * sizeof *p->free);
        p->nfree--;
    }
    return true;
}

static size_t largest_free(const oklc_pool *p)
{
    size_t most = 0;
    for (size_t i = 0; i < p->nfree; i++)
        if (p->free[i].bytes > most)
            most = p->free[i].bytes;
    return most;
}

static void release(oklc_memory *view);

oklc_status oklc_pool_reserve(oklc_pool *p, size_t bytes, oklc_memory **out)
{
    if (!p || !out)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_pool_reserve: NULL %s", p ? "out" : "pool");
    *out = NULL;
    pthread_mutex_lock(&p->lock);
    size_t at = 0, i = bytes ? first_fit(p, bytes, &at) : 0;    /* 0 bytes take no range */
    oklc_status st = OKLC_OK;
    if (bytes && i == p->nfree)
        st = oklc_rt_fail(OKLC_ERR_MEMORY, "oklc_pool_reserve: no free range of the pool holds "
                          "%zu bytes (%zu of %zu bytes reserved, the largest free range %zu "
                          "bytes)", bytes, p->used, p->size, largest_free(p));
    else if (!(st = oklc_memory_view(p->whole, at, bytes, out)) && bytes &&
             !take(p, i, at, span(p, at, bytes))) {
        oklc_memory_free(*out);
        *out = NULL;
        st = oklc_rt_oom();
    }
    if (!st) {
        (*out)->pool = p;
        (*out)->release = release;
        __atomic_fetch_add(&p->used, bytes ? span(p, at, bytes) : 0, __ATOMIC_RELAXED);
        __atomic_fetch_add(&p->refs, 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&p->lock);
    return st;
}

/* Puts [at, at + bytes) back, merged with the free ranges it touches. An
 * allocation failure leaves the range lost to the pool, never corrupt. */
static void give_back(oklc_pool *p, size_t at, size_t bytes)
{
    size_t i = 0;
    while (i < p->nfree && p->free[i].at < at)
        i++;
    bool left = i > 0 && p->free[i - 1].at + p->free[i - 1].bytes == at;
    bool right = i < p->nfree && at + bytes == p->free[i].at;
    if (left && right) {
        p->free[i - 1].bytes += bytes + p->free[i].bytes;
        memmove(&p->free[i], &p->free[i + 1], (p->nfree - i - 1) * sizeof *p->free);
        p->nfree--;
    } else if (left) {
        p->free[i - 1].bytes += bytes;
    } else if (right) {
        p->free[i].at = at, p->free[i].bytes += bytes;
    } else {
        if (p->nfree == p->cap) {
            Range *bigger = oklc_realloc(p->free, 2 * p->cap * sizeof *bigger);
            if (!bigger)
                return;
            p->free = bigger, p->cap *= 2;
        }
        memmove(&p->free[i + 1], &p->free[i], (p->nfree - i) * sizeof *p->free);
        p->free[i] = (Range){at, bytes};
        p->nfree++;
    }
}

/* oklc_memory_free of a view the pool reserved (its `release`). */
static void release(oklc_memory *view)
{
    oklc_pool *p = view->pool;
    pthread_mutex_lock(&p->lock);
    if (view->size) {
        size_t bytes = span(p, view->offset, view->size);
        give_back(p, view->offset, bytes);
        __atomic_fetch_sub(&p->used, bytes, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&p->lock);
    unref(p);
}
