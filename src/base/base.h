/*
 * base.h - what every stage shares: memory (one arena per context), growable
 * text buffers and arrays, source files and positions, and diagnostics.
 *
 * Sections follow the files that implement them:
 *   arena.c   Arena, oklc_alloc hook (a test can make the N-th allocation fail)
 *   buf.c     Buf: text built by appending, errors are sticky
 *   srcfile.c SrcFile and Loc: every position the user sees
 *   diag.c    Diag: recorded by the library, printed by the caller
 *   (oklc.c)  the transpilation context (struct oklc_ctx)
 */
#ifndef OKLC_BASE_H
#define OKLC_BASE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "oklc/oklc.h"

#define OKLC_INTERNAL __attribute__((visibility("hidden")))
#define OKLC_PRINTF(f, a) __attribute__((format(printf, f, a)))

#define OKLC_COUNTOF(a) (sizeof(a) / sizeof((a)[0]))

/* A bug in oklc itself, never a user error. */
#define oklc_unreachable() oklc_die(__FILE__, __LINE__, "unreachable")
OKLC_INTERNAL _Noreturn void oklc_die(const char *file, int line, const char *what);

/* ---- arena.c ---------------------------------------------------------- */

/* Every allocation of the library goes through here: malloc/realloc, or the
 * failure hook installed by tests (oklc_set_alloc_hook). */
OKLC_INTERNAL void *oklc_malloc(size_t n);
OKLC_INTERNAL void *oklc_realloc(void *p, size_t n);
OKLC_INTERNAL void oklc_free(void *p);

typedef struct ArenaChunk ArenaChunk;

typedef struct Arena {
    ArenaChunk *head;
    size_t      total;   /* bytes handed out, for statistics */
    jmp_buf    *oom;     /* where to jump when memory runs out; NULL: abort */
} Arena;

OKLC_INTERNAL extern size_t oklc_arena_chunk_size;   /* bytes per chunk; tests shrink it */
OKLC_INTERNAL void *oklc_arena_alloc(Arena *a, size_t n);     /* zeroed */
OKLC_INTERNAL void *oklc_arena_grow(Arena *a, void *old, size_t oldn, size_t newn);
/* Room for one more element in an array of n that only this function
 * grows (a model node's list: v->refs, s->kids): the capacity doubles at
 * each power of two, so n appends cost O(n), not O(n^2). */
OKLC_INTERNAL void *oklc_arena_append(Arena *a, void *arr, size_t n, size_t size);
OKLC_INTERNAL char *oklc_arena_strndup(Arena *a, const char *s, size_t n);
OKLC_INTERNAL char *oklc_arena_strdup(Arena *a, const char *s);
OKLC_INTERNAL char *oklc_arena_printf(Arena *a, const char *fmt, ...) OKLC_PRINTF(2, 3);
OKLC_INTERNAL void oklc_arena_free(Arena *a);
OKLC_INTERNAL _Noreturn void oklc_arena_oom(Arena *a);

/* Names to numbers (names.c): lookups in constant time, for tables that
 * grow to tens of thousands of names. Names are not copied. */
typedef struct NameSlot {
    const char *name;
    size_t      value;
} NameSlot;
typedef struct NameTable {
    NameSlot *slots;
    size_t    cap, len;
} NameTable;
OKLC_INTERNAL bool oklc_names_get(const NameTable *t, const char *name, size_t *value);
OKLC_INTERNAL void oklc_names_put(Arena *a, NameTable *t, const char *name, size_t value);

/* Persistent sets of numbers (idset.c): adding to a set gives a new set
 * and leaves the old one as it was, so sets share their parts. NULL is the
 * empty set. A look-up or an addition costs O(log n) in the largest number
 * (32 steps at most), whatever the size of the set. */
typedef struct IdSet IdSet;
OKLC_INTERNAL bool oklc_idset_has(const IdSet *s, uint32_t id);
OKLC_INTERNAL const IdSet *oklc_idset_add(Arena *a, const IdSet *s, uint32_t id);
OKLC_INTERNAL const IdSet *oklc_idset_union(Arena *a, const IdSet *x, const IdSet *y);
OKLC_INTERNAL const IdSet *oklc_idset_intersect(Arena *a, const IdSet *x, const IdSet *y);

/* Runs fn(arg) on a new thread with `size` bytes of stack and waits for
 * it (stack.c); false, and nothing run, when no such thread can be had. */
OKLC_INTERNAL bool oklc_run_on_stack(size_t size, void (*fn)(void *), void *arg);

/* Typed growable array living in an arena: VEC(int) v = {0}; vec_push(a, &v, 3); */
#define VEC(T)                                                                 \
    struct {                                                                   \
        T     *data;                                                           \
        size_t len, cap;                                                       \
    }
#define vec_push(arena, v, x)                                                  \
    do {                                                                       \
        if ((v)->len == (v)->cap) {                                            \
            size_t nc_ = (v)->cap ? (v)->cap * 2 : 16;                         \
            (v)->data = oklc_arena_grow((arena), (v)->data,                    \
                                        (v)->cap * sizeof(*(v)->data),         \
                                        nc_ * sizeof(*(v)->data));             \
            (v)->cap = nc_;                                                    \
        }                                                                      \
        (v)->data[(v)->len++] = (x);                                           \
    } while (0)
#define vec_last(v) ((v)->data[(v)->len - 1])

/* ---- buf.c ------------------------------------------------------------- */

/* Text under construction, kept NUL-terminated. Memory comes from the arena,
 * so a Buf needs no free. */
typedef struct Buf {
    Arena *arena;
    char  *data;
    size_t len, cap;
} Buf;

OKLC_INTERNAL void oklc_buf_init(Buf *b, Arena *a);
OKLC_INTERNAL void oklc_buf_putn(Buf *b, const char *s, size_t n);
OKLC_INTERNAL void oklc_buf_puts(Buf *b, const char *s);
OKLC_INTERNAL void oklc_buf_putc(Buf *b, char c);
OKLC_INTERNAL void oklc_buf_printf(Buf *b, const char *fmt, ...) OKLC_PRINTF(2, 3);
OKLC_INTERNAL void oklc_buf_vprintf(Buf *b, const char *fmt, va_list ap);
/* Appends s as the body of a C string literal (quotes not included). */
OKLC_INTERNAL void oklc_buf_put_escaped(Buf *b, const char *s, size_t n);

/* ---- srcfile.c --------------------------------------------------------- */

/* One buffer of source text: a file, the command line (-D/-U/--include), or
 * the built-in macros. A #line directive creates a view of the same text with
 * another name and a line offset, so Loc.file indexes views, not buffers. */
typedef struct SrcFile {
    const char *path;        /* as opened, e.g. "kernels/a.okl" */
    const char *text;        /* NUL-terminated */
    size_t      len;
    uint32_t   *line_starts; /* byte offset of each line's first char */
    uint32_t    nlines;
    bool        is_builtin;  /* "<built-in>", "<command line>": no source lines */
} SrcFile;

typedef struct FileView {
    SrcFile    *src;
    const char *name;        /* what diagnostics print */
    int32_t     line_delta;  /* presumed line = physical line + delta */
} FileView;

/* A position in the user's sources: physical line and byte column, 1-based.
 * file == 0 means "no position" (messages about the command itself). */
typedef struct Loc {
    uint32_t file;   /* index into ctx->views */
    uint32_t line;
    uint32_t col;
    uint32_t off;    /* byte offset in the buffer */
} Loc;

/* The most a source file may hold (the input, an included file, a file
 * Clang is told to read): offsets are 32-bit, and a kernel with its headers
 * is far smaller; a device such as /dev/zero ends with EFBIG, not when
 * memory runs out. */
#define OKLC_SRC_MAX ((size_t)256 << 20)

/* Registers a buffer (text must outlive the context; usually in the arena). */
OKLC_INTERNAL SrcFile *oklc_src_new(oklc_ctx *c, const char *path, const char *text,
                                    size_t len, bool builtin);
OKLC_INTERNAL uint32_t oklc_view_new(oklc_ctx *c, SrcFile *f, const char *name,
                                     int32_t line_delta);
OKLC_INTERNAL Loc oklc_src_loc(oklc_ctx *c, uint32_t view, uint32_t off);
/* The line a position presumes (#line shifts it): physical line + delta,
 * in 64 bits (#line 2147483647 then more lines passes INT_MAX). */
OKLC_INTERNAL long long oklc_presumed_line(const oklc_ctx *c, Loc loc);
/* Reads a whole file into the arena; NULL (errno set) when it cannot. */
OKLC_INTERNAL char *oklc_read_file(oklc_ctx *c, const char *path, size_t *len);
/* The file of exactly this name that the host keeps in memory, or NULL. */
OKLC_INTERNAL const struct MemFile *oklc_mem_file(oklc_ctx *c, const char *name);

/* ---- diag.c ------------------------------------------------------------ */

typedef enum DiagLevel { DIAG_NOTE, DIAG_WARNING, DIAG_ERROR } DiagLevel;

typedef struct Diag {
    DiagLevel    level;
    Loc          loc;
    const char  *msg;
    struct Diag *notes;    /* attached notes ("expanded from macro ...") */
    struct Diag *next;
} Diag;

OKLC_INTERNAL Diag *oklc_diag(oklc_ctx *c, DiagLevel lv, Loc loc, const char *fmt, ...)
    OKLC_PRINTF(4, 5);
/* Reports running out of memory with the one diagnostic the context keeps
 * for it (nothing else can be allocated then); once. */
OKLC_INTERNAL void oklc_diag_out_of_memory(oklc_ctx *c);
OKLC_INTERNAL Diag *oklc_diag_error(oklc_ctx *c, Loc loc, const char *fmt, ...)
    OKLC_PRINTF(3, 4);
OKLC_INTERNAL Diag *oklc_diag_warning(oklc_ctx *c, Loc loc, const char *fmt, ...)
    OKLC_PRINTF(3, 4);
OKLC_INTERNAL void oklc_diag_note(oklc_ctx *c, Diag *d, Loc loc, const char *fmt, ...)
    OKLC_PRINTF(4, 5);

/* ---- the context (oklc.c) ------------------------------------------------ */

typedef struct Token Token;

/* A user-visible macro definition from the API or the command line, applied
 * in order: -D, -U and --include keep their relative order, as in cc. */
typedef enum CmdKind { CMD_DEFINE, CMD_UNDEF, CMD_INCLUDE } CmdKind;
typedef struct Cmd {
    CmdKind     kind;
    const char *text;
} Cmd;

/* A file the host keeps in memory (oklc_add_header). */
typedef struct MemFile {
    const char *name, *text;
    size_t      len;
} MemFile;

struct oklc_ctx {
    Arena arena;

    /* options */
    VEC(Cmd) cmds;                 /* -D / -U / --include, in order */
    VEC(const char *) incpaths;    /* -I */
    oklc_backend backend;
    bool         werror;
    bool         wall;                  /* -Wall */
    const struct oklc_stats_options *stats; /* oklc_stats: the counts are the output */
    bool         count_ops;             /* oklc_set_count_ops: counters in the serial output */
    bool         no_cpu_rewrites;       /* oklc_set_cpu_rewrites(c, false) */
    bool         backend_set;           /* oklc_set_backend(_name) was called */
    VEC(const char *) clang_args;       /* --clang-arg */
    const char  *pch_dir;               /* precompiled preludes (parse/pch.c), or NULL */
    VEC(struct Intrinsic *) intrinsics; /* the user's (intrinsics/intrinsics.c) */
    NameTable    intrinsic_names;       /* name -> index in intrinsics */
    const char  *backend_name;          /* by name (a plugin's), or NULL: `backend`'s */
    oklc_convention convention;         /* whose runtime calls the output */
    VEC(struct MemFile) mem_files;      /* oklc_add_header */

    /* registries: the built-in entries, entered on first use, then the
     * plugins' (normalize/attrs.c, backends/backends.c, plugin/plugin.c) */
    VEC(const struct AttrSpec *) attr_specs;
    VEC(const struct Backend *)  backends;
    bool         builtin_attrs, builtin_backends;
    struct Plugins *plugins;            /* loaded plugins and their stages, or NULL */

    /* sources */
    VEC(SrcFile *) files;
    VEC(FileView) views;           /* views.data[0] is "no file" */

    /* diagnostics */
    Diag  *diags, **diags_tail;
    int    nerrors, nwarnings;
    bool   oom;                    /* the stage stopped because memory ran out */
    Diag   oom_diag;               /* reported then: nothing can be allocated */
    bool   used;                   /* a stage has run */
    size_t max_errors;             /* stop recording errors after this many */

    /* results of the stages */
    const char *output;            /* the last stage's text */
    size_t      output_len;
    struct PPResult   *pp;
    struct Normalized *norm;
    struct Model      *model;
    char              *metadata;   /* JSON from cJSON's allocator, freed with the context */
    char              *launcher_metadata; /* the same, OCCA's convention only */
    char              *launcher;   /* host launcher source, in the arena (or NULL) */
    const char        *input_hash;
    VEC(const char *)  instances;  /* template kernels to instantiate */
};

#endif
