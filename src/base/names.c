/*
 * names.c - a table from names to numbers (open addressing, FNV-1a): the
 * lookups that would otherwise compare a name with every name before it
 * (40,000 intrinsics: seconds instead of milliseconds). The names are not
 * copied: they outlive the table (arena strings). Memory from the arena.
 */
#include <string.h>

#include "base.h"

static size_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (size_t)h;
}

static NameSlot *slot_of(const NameTable *t, const char *name)
{
    size_t i = fnv1a(name) & (t->cap - 1);
    while (t->slots[i].name && strcmp(t->slots[i].name, name))
        i = (i + 1) & (t->cap - 1);
    return &t->slots[i];
}

bool oklc_names_get(const NameTable *t, const char *name, size_t *value)
{
    if (!t->cap)
        return false;
    const NameSlot *s = slot_of(t, name);
    if (s->name && value)
        *value = s->value;
    return s->name != NULL;
}

/* Doubled before it is half full: probes stay short. */
static void grow(Arena *a, NameTable *t)
{
    NameTable bigger = {oklc_arena_alloc(a, (t->cap ? t->cap * 2 : 64) * sizeof(NameSlot)),
                        t->cap ? t->cap * 2 : 64, 0};
    memset(bigger.slots, 0, bigger.cap * sizeof(NameSlot));
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].name) {
            *slot_of(&bigger, t->slots[i].name) = t->slots[i];
            bigger.len++;
        }
    *t = bigger;
}

void oklc_names_put(Arena *a, NameTable *t, const char *name, size_t value)
{
    if (2 * (t->len + 1) > t->cap)
        grow(a, t);
    NameSlot *s = slot_of(t, name);
    if (!s->name)
        t->len++;
    *s = (NameSlot){name, value};
}
