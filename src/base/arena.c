/*
 * arena.c - one arena per context, and the single allocation function.
 *
 * Everything a transpilation creates (tokens, macros, text, diagnostics) is
 * carved out of large chunks and released at once by oklc_arena_free(). When
 * memory runs out the arena jumps to the stage entry that armed `oom`; the
 * stage then reports failure. Nothing else in the library checks for NULL.
 */
#include <stdlib.h>
#include <string.h>

#include "base.h"

static oklc_alloc_fn alloc_hook;
static void *alloc_user;

void oklc_set_alloc_hook(oklc_alloc_fn fn, void *user)
{
    alloc_hook = fn;
    alloc_user = user;
}

void *oklc_malloc(size_t n)
{
    return alloc_hook ? alloc_hook(NULL, n, alloc_user) : malloc(n);
}

void *oklc_realloc(void *p, size_t n)
{
    return alloc_hook ? alloc_hook(p, n, alloc_user) : realloc(p, n);
}

void oklc_free(void *p)
{
    if (!p)
        return;
    if (alloc_hook)
        alloc_hook(p, 0, alloc_user);
    else
        free(p);
}

_Noreturn void oklc_die(const char *file, int line, const char *what)
{
    fprintf(stderr, "oklc: internal error at %s:%d: %s\n", file, line, what);
    abort();
}

struct ArenaChunk {
    ArenaChunk *next;
    size_t      used, size;
    max_align_t data[];    /* aligned for anything */
};

/* Tests make chunks tiny so that out-of-memory happens at many places. */
size_t oklc_arena_chunk_size = 64 * 1024;
#define CHUNK_SIZE oklc_arena_chunk_size

_Noreturn void oklc_arena_oom(Arena *a)
{
    if (a->oom)
        longjmp(*a->oom, 1);
    oklc_die(__FILE__, __LINE__, "out of memory outside a stage");
}

void *oklc_arena_alloc(Arena *a, size_t n)
{
    n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
    ArenaChunk *ch = a->head;
    if (!ch || ch->size - ch->used < n) {
        size_t size = n > CHUNK_SIZE / 2 ? n : CHUNK_SIZE;
        bool big = size > CHUNK_SIZE;
        ch = oklc_malloc(sizeof(ArenaChunk) + size);
        if (!ch)
            oklc_arena_oom(a);
        ch->size = size;
        ch->used = 0;
        /* A big block gets its own chunk behind the current one, so the
         * current chunk keeps serving small requests. */
        if (big && a->head) {
            ch->next = a->head->next;
            a->head->next = ch;
        } else {
            ch->next = a->head;
            a->head = ch;
        }
    }
    void *p = (char *)ch->data + ch->used;
    ch->used += n;
    a->total += n;
    memset(p, 0, n);
    return p;
}

void *oklc_arena_grow(Arena *a, void *old, size_t oldn, size_t newn)
{
    void *p = oklc_arena_alloc(a, newn);
    if (old && oldn)
        memcpy(p, old, oldn < newn ? oldn : newn);
    return p;
}

void *oklc_arena_append(Arena *a, void *arr, size_t n, size_t size)
{
    if (n && (n & (n - 1)))
        return arr;                     /* not full: n is not a power of two */
    return oklc_arena_grow(a, arr, n * size, (n ? 2 * n : 1) * size);
}

char *oklc_arena_strndup(Arena *a, const char *s, size_t n)
{
    char *p = oklc_arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *oklc_arena_strdup(Arena *a, const char *s)
{
    return oklc_arena_strndup(a, s, strlen(s));
}

void oklc_arena_free(Arena *a)
{
    ArenaChunk *ch = a->head;
    while (ch) {
        ArenaChunk *next = ch->next;
        oklc_free(ch);
        ch = next;
    }
    a->head = NULL;
    a->total = 0;
}
