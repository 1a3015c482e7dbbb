/*
 * idset.c - persistent sets of numbers: adding to a set, or uniting or
 * intersecting two, gives a new set and leaves the others as they were,
 * so sets share their parts (the preprocessor's hidesets: each token has
 * one, most of them its neighbours'). A set is a binary trie on the bits
 * of its numbers, lowest first, in one canonical shape: a subtree that
 * holds one number is that number's leaf. So a look-up or an addition
 * visits at most 32 nodes however large the set (a list, searched whole,
 * made a chain of 100,000 macros quadratic), and equal parts are often the
 * same pointer, which ends a union or intersection early.
 *
 * A leaf is no allocation: the pointer itself, tagged with its low bit,
 * holds the number. Inner nodes come from the arena. NULL is the empty set.
 */
#include <assert.h>

#include "base.h"

struct IdSet {
    const IdSet *kid[2];   /* the numbers whose bit at this depth is 0, 1 */
};

static const IdSet *leaf(uint32_t id)
{
    assert((uintptr_t)id <= UINTPTR_MAX >> 1);
    return (const IdSet *)(((uintptr_t)id << 1) | 1);
}

static bool is_leaf(const IdSet *s)
{
    return (uintptr_t)s & 1;
}

static uint32_t leaf_id(const IdSet *s)
{
    return (uint32_t)((uintptr_t)s >> 1);
}

static unsigned bit(uint32_t id, unsigned depth)
{
    return (id >> depth) & 1;
}

/* An inner node, or what stands for it in the canonical shape: nothing,
 * or the one leaf below it. */
static const IdSet *node(Arena *a, const IdSet *k0, const IdSet *k1)
{
    if (!k0 && (!k1 || is_leaf(k1)))
        return k1;
    if (!k1 && is_leaf(k0))
        return k0;
    IdSet *n = oklc_arena_alloc(a, sizeof *n);
    n->kid[0] = k0;
    n->kid[1] = k1;
    return n;
}

/* s at `depth`, with its kid b replaced (s itself when k is that kid). */
static const IdSet *with_kid(Arena *a, const IdSet *s, unsigned b, const IdSet *k)
{
    if (k == s->kid[b])
        return s;
    return b ? node(a, s->kid[0], k) : node(a, k, s->kid[1]);
}

/* Two different leaves at `depth`: the nodes down to the bit where their
 * numbers differ (numbers of 32 bits differ below depth 32). */
static const IdSet *pair(Arena *a, const IdSet *x, const IdSet *y, unsigned depth)
{
    unsigned bx = bit(leaf_id(x), depth), by = bit(leaf_id(y), depth);
    if (bx != by)
        return bx ? node(a, y, x) : node(a, x, y);
    const IdSet *k = pair(a, x, y, depth + 1);
    IdSet *n = oklc_arena_alloc(a, sizeof *n);
    n->kid[bx] = k;
    return n;
}

static bool has_at(const IdSet *s, uint32_t id, unsigned depth)
{
    while (s && !is_leaf(s))
        s = s->kid[bit(id, depth++)];
    return s && leaf_id(s) == id;
}

bool oklc_idset_has(const IdSet *s, uint32_t id)
{
    return has_at(s, id, 0);
}

/* The recursions below go one level per bit: 33 deep at most. */
static const IdSet *unite(Arena *a, const IdSet *x, const IdSet *y, unsigned depth)
{
    if (!x || x == y)
        return y;
    if (!y)
        return x;
    if (is_leaf(x) && is_leaf(y))
        return pair(a, x, y, depth);
    if (is_leaf(x)) {            /* y is the inner node */
        const IdSet *t = x;
        x = y;
        y = t;
    }
    if (is_leaf(y)) {
        unsigned b = bit(leaf_id(y), depth);
        return with_kid(a, x, b, unite(a, x->kid[b], y, depth + 1));
    }
    const IdSet *k0 = unite(a, x->kid[0], y->kid[0], depth + 1);
    const IdSet *k1 = unite(a, x->kid[1], y->kid[1], depth + 1);
    if (k0 == x->kid[0] && k1 == x->kid[1])
        return x;
    if (k0 == y->kid[0] && k1 == y->kid[1])
        return y;
    return node(a, k0, k1);
}

const IdSet *oklc_idset_add(Arena *a, const IdSet *s, uint32_t id)
{
    return unite(a, s, leaf(id), 0);
}

const IdSet *oklc_idset_union(Arena *a, const IdSet *x, const IdSet *y)
{
    return unite(a, x, y, 0);
}

static const IdSet *meet(Arena *a, const IdSet *x, const IdSet *y, unsigned depth)
{
    if (!x || !y)
        return NULL;
    if (x == y)
        return x;
    if (is_leaf(x))
        return has_at(y, leaf_id(x), depth) ? x : NULL;
    if (is_leaf(y))
        return has_at(x, leaf_id(y), depth) ? y : NULL;
    const IdSet *k0 = meet(a, x->kid[0], y->kid[0], depth + 1);
    const IdSet *k1 = meet(a, x->kid[1], y->kid[1], depth + 1);
    if (k0 == x->kid[0] && k1 == x->kid[1])
        return x;
    if (k0 == y->kid[0] && k1 == y->kid[1])
        return y;
    return node(a, k0, k1);
}

const IdSet *oklc_idset_intersect(Arena *a, const IdSet *x, const IdSet *y)
{
    return meet(a, x, y, 0);
}
