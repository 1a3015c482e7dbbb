/*
 * oklc.c - the public API: contexts, options, and the stages in order.
 *
 * Each stage entry arms the arena's out-of-memory jump, runs the pipeline
 * up to the stage asked for, and stops after the first stage that reported
 * an error. Nothing here prints: messages wait in the context.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "intrinsics/intrinsics.h"
#include "plugin/plugin.h"
#include "analysis/analysis.h"
#include "sema/sema.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

enum { DEFAULT_MAX_ERRORS = 50 };

const char *oklc_version(void)
{
    return OKLC_VERSION_STRING;
}

oklc_ctx *oklc_ctx_new(void)
{
    oklc_ctx *c = oklc_malloc(sizeof *c);
    if (!c)
        return NULL;
    memset(c, 0, sizeof *c);
    c->diags_tail = &c->diags;
    c->max_errors = DEFAULT_MAX_ERRORS;
    return c;
}

void oklc_ctx_free(oklc_ctx *c)
{
    if (!c)
        return;
    cJSON_free(c->metadata);
    cJSON_free(c->launcher_metadata);
    oklc_plugins_unload(c);
    oklc_arena_free(&c->arena);
    oklc_free(c);
}

/* Runs `body` with out-of-memory protection. Options use it too, so that a
 * failed allocation anywhere becomes a reported error, never an abort. */
#define GUARDED(c, fail_value, ...)                                             \
    do {                                                                        \
        jmp_buf jb_;                                                            \
        (c)->arena.oom = &jb_;                                                  \
        if (setjmp(jb_)) {                                                      \
            (c)->arena.oom = NULL;                                              \
            oklc_diag_out_of_memory(c);                                         \
            return fail_value;                                                  \
        }                                                                       \
        __VA_ARGS__;                                                            \
        (c)->arena.oom = NULL;                                                  \
    } while (0)

static void add_cmd(oklc_ctx *c, CmdKind kind, const char *text)
{
    if (c->oom || !text)
        return;
    GUARDED(c, , {
        Cmd cmd = {kind, oklc_arena_strdup(&c->arena, text)};
        vec_push(&c->arena, &c->cmds, cmd);
    });
}

void oklc_define(oklc_ctx *c, const char *definition)
{
    add_cmd(c, CMD_DEFINE, definition);
}

void oklc_undef(oklc_ctx *c, const char *name)
{
    add_cmd(c, CMD_UNDEF, name);
}

void oklc_include_file(oklc_ctx *c, const char *path)
{
    add_cmd(c, CMD_INCLUDE, path);
}

void oklc_include_path(oklc_ctx *c, const char *dir)
{
    if (c->oom || !dir)
        return;
    GUARDED(c, , {
        size_t n = strlen(dir);
        while (n > 1 && dir[n - 1] == '/')
            n--;
        const char *d = oklc_arena_strndup(&c->arena, dir, n);
        vec_push(&c->arena, &c->incpaths, d);
    });
}

void oklc_set_backend(oklc_ctx *c, oklc_backend b)
{
    c->backend = b;
    c->backend_name = NULL;
    c->backend_set = true;
}

void oklc_set_convention(oklc_ctx *c, oklc_convention conv)
{
    c->convention = conv;
}

void oklc_add_header(oklc_ctx *c, const char *name, const char *text, size_t len)
{
    if (c->oom || !name)
        return;
    GUARDED(c, , {
        MemFile f = {oklc_arena_strdup(&c->arena, name),
                     oklc_arena_strndup(&c->arena, text ? text : "", text ? len : 0),
                     text ? len : 0};
        vec_push(&c->arena, &c->mem_files, f);
    });
}

bool oklc_set_backend_name(oklc_ctx *c, const char *name)
{
    if (c->oom || !name)
        return false;
    const Backend *be = NULL;
    GUARDED(c, false, { be = oklc_backend_find(c, name); });
    if (!be)
        return false;
    c->backend = be->id;
    c->backend_name = be->plugin ? be->name : NULL;
    c->backend_set = true;
    return true;
}

bool oklc_load_plugin(oklc_ctx *c, const char *path)
{
    if (c->oom || !path)
        return false;
    bool ok = false;
    GUARDED(c, false, { ok = oklc_plugin_load(c, path); });
    return ok;
}

bool oklc_add_intrinsic(oklc_ctx *c, const oklc_intrinsic *in)
{
    if (!c || c->oom)
        return false;
    bool ok = false;
    GUARDED(c, false, {
        if (!in)
            oklc_diag_error(c, (Loc){0}, "oklc_add_intrinsic: the description is NULL");
        else
            ok = oklc_intrinsic_add(c, in);
    });
    return ok;
}

bool oklc_load_intrinsics(oklc_ctx *c, const char *path)
{
    if (!c || c->oom)
        return false;
    bool ok = false;
    GUARDED(c, false, {
        if (!path)
            oklc_diag_error(c, (Loc){0}, "oklc_load_intrinsics: the path is NULL");
        else
            ok = oklc_intrinsics_load(c, path);
    });
    return ok;
}

void oklc_set_werror(oklc_ctx *c, bool on)
{
    c->werror = on;
}

void oklc_set_wall(oklc_ctx *c, bool on)
{
    c->wall = on;
}

void oklc_set_cpu_rewrites(oklc_ctx *c, bool on)
{
    c->no_cpu_rewrites = !on;
}

void oklc_set_pch_dir(oklc_ctx *c, const char *dir)
{
    if (c->oom)
        return;
    GUARDED(c, , { c->pch_dir = dir ? oklc_arena_strdup(&c->arena, dir) : NULL; });
}

void oklc_add_clang_arg(oklc_ctx *c, const char *arg)
{
    if (c->oom || !arg)
        return;
    GUARDED(c, , {
        const char *a = oklc_arena_strdup(&c->arena, arg);
        vec_push(&c->arena, &c->clang_args, a);
    });
}

/* ---- the pipeline ------------------------------------------------------------- */

/* What a stage call asks of the pipeline: the stage whose output it wants. */
typedef enum Upto { UPTO_PREPROCESS, UPTO_NORMALIZE, UPTO_CHECK, UPTO_TRANSPILE } Upto;

typedef struct Run {
    oklc_ctx   *c;
    const char *path;
    const char *text;      /* the input, or NULL: the file at path */
    size_t      len;
    unsigned    flags;     /* OKLC_KEEP_MACROS, OKLC_DUMP_MODEL */
    Upto        upto;
    bool        deep;      /* on the stack sized for the input: from the parse on */
    bool        ok;
} Run;

static void set_output(oklc_ctx *c, const char *text, size_t len)
{
    c->output = text;
    c->output_len = len;
}

/* A context runs one stage call: its files and messages belong to it. */
static bool begin(oklc_ctx *c)
{
    if (c->oom || c->nerrors)     /* an option failed (a plugin, intrinsics) */
        return false;
    if (c->used) {
        oklc_diag_error(c, (Loc){0}, "a context transpiles one input; create a new one");
        return false;
    }
    c->used = true;
    return true;
}

/* The input as the plugins' source hooks leave it (r->text NULL: still
 * the file's to read); false after an error. */
static bool source(Run *r)
{
    oklc_ctx *c = r->c;
    if (r->text)
        r->text = oklc_arena_strndup(&c->arena, r->text, r->len);
    return oklc_plugins_source(c, r->path, &r->text, &r->len);
}

/* --keep-macros: the input normalized as written, without preprocessing. */
static Normalized *keep_macros(oklc_ctx *c, const char *path, const char *text, size_t len)
{
    if (!text) {
        text = oklc_read_file(c, path, &len);
        if (!text) {
            oklc_diag_error(c, (Loc){0}, "cannot open '%s': %s", path, strerror(errno));
            return NULL;
        }
    }
    uint32_t view = oklc_pp_add_buffer(c, path, text, len, false);
    return oklc_normalize_raw_view(c, view);
}

/* The normalized text, after the plugins that look at it; NULL after an
 * error. */
static Normalized *normalize(Run *r, const PPResult *pp)
{
    oklc_ctx *c = r->c;
    Normalized *nz = r->flags & OKLC_KEEP_MACROS ? keep_macros(c, r->path, r->text, r->len)
                     : pp                         ? oklc_normalize_tokens(c, pp->toks, pp->ntoks)
                                                  : NULL;
    const char *text = nz ? nz->text : NULL;
    size_t len = nz ? nz->len : 0;
    return nz && oklc_plugins_after(c, OKLC_AFTER_NORMALIZE, NULL, &text, &len) ? nz : NULL;
}

/* XXH3-128 of the normalized text (everything the preprocessor produced,
 * "..." includes inlined), the backend, the convention (OCCA's, when it
 * is that) and the plugins loaded. */
static const char *input_hash(oklc_ctx *c, const Normalized *nz, const char *b)
{
    XXH3_state_t st;
    XXH3_128bits_reset(&st);
    XXH3_128bits_update(&st, nz->text, nz->len);
    XXH3_128bits_update(&st, b, strlen(b) + 1);
    if (c->convention == OKLC_CONVENTION_OCCA)
        XXH3_128bits_update(&st, "occa", 5);
    const char *plugins = oklc_plugins_identity(c);
    if (plugins)
        XXH3_128bits_update(&st, plugins, strlen(plugins));
    XXH128_hash_t h = XXH3_128bits_digest(&st);
    return oklc_arena_printf(&c->arena, "%016llx%016llx", (unsigned long long)h.high64,
                             (unsigned long long)h.low64);
}

/* The backend's edits of the text nz, whose model is m (kept, all_kept:
 * the flat @tile loops that stay as written, Emit.tiles_kept); NULL after
 * an error. */
static Emit *translate(oklc_ctx *c, const Backend *be, const Normalized *nz, Model *m,
                       const char *path, const IdSet *kept, bool all_kept)
{
    Emit *E = oklc_arena_alloc(&c->arena, sizeof *E);
    *E = (Emit){.c = c, .nz = nz, .m = m, .be = be, .path = path, .tiles_kept = kept,
                .tiles_all_kept = all_kept};
    oklc_edits_init(&E->ed, &c->arena, nz->text, (uint32_t)nz->len);
    oklc_buf_init(&E->tail, &c->arena);
    oklc_buf_init(&E->head, &c->arena);
    oklc_plugins_emit(E);
    if (!oklc_emit_intrinsics(E) || !be->translate(E))    /* the user's intrinsics first */
        return NULL;
    oklc_emit_half(E);
    return E;
}

/* The diagnostics of a translation that is tried: dropped after it. */
typedef struct Quiet {
    Diag **tail;
    int    errors, warnings;
} Quiet;

static Quiet quiet(oklc_ctx *c)
{
    return (Quiet){c->diags_tail, c->nerrors, c->nwarnings};
}

/* Drops what came after q; false if it was an error. */
static bool unquiet(oklc_ctx *c, Quiet q)
{
    bool ok = c->nerrors == q.errors;
    *q.tail = NULL;
    c->diags_tail = q.tail;
    c->nerrors = q.errors;
    c->nwarnings = q.warnings;
    return ok;
}

/* The CPU backends split an @inner loop with a @barrier inside into
 * parts (cpu_split.c), and write the input again with each part an @inner
 * loop of its own (E->relaid). That text, translated once more, gets every
 * rule for @inner loops in each part (the interchange of a per-thread
 * loop, bounds from guards); a block's nests fused (cpu_fuse.c) are
 * written the same way, and a split's parts are fused in the translation
 * after it (at most two more). Each output replaces the one before only
 * when it parses and translates without an error; its diagnostics are dropped
 * either way (the user's text had its own). Not with plugins, which see
 * each translation. NULL: nothing better than `first`. */
static Emit *relay(oklc_ctx *c, Emit *first)
{
    if (oklc_plugins_identity(c))
        return NULL;
    const char *text = oklc_edits_text(first->relaid, 0, (uint32_t)first->nz->len);
    size_t len = strlen(text);
    if (len == first->nz->len && !memcmp(text, first->nz->text, len))
        return NULL;    /* a relay that wrote nothing in the end */
    Quiet q = quiet(c);
    ParseOptions o = {c->clang_args.data, c->clang_args.len, false, true, c->count_ops};
    Normalized *nz = oklc_normalize_raw_view(c, oklc_pp_add_buffer(c, "<split>", text, len, false));
    Model *m = nz && c->nerrors == q.errors ? oklc_parse(c, nz, &o) : NULL;
    Emit *E = m && oklc_sema_check(c, m, &o) && oklc_analyze(c, m, &o) && c->nerrors == q.errors
                  ? translate(c, first->be, nz, m, first->path, NULL,
                              first->tiles_all_kept || first->tiles_kept)
                  : NULL;
    return unquiet(c, q) ? E : NULL;
}

/* `first` again with the flat @tile loops `vain` as written too
 * (tiles_in_vain()). The diagnostics are the first's. NULL: nothing
 * better. */
static Emit *keeping(oklc_ctx *c, const Emit *first, const IdSet *vain)
{
    Quiet q = quiet(c);
    Emit *E = translate(c, first->be, first->nz, first->m, first->path,
                        oklc_idset_union(&c->arena, first->tiles_kept, vain), false);
    return unquiet(c, q) && E && E->relaid ? E : NULL;
}

/* first's decisions, then v's. */
static void prepend(oklc_ctx *c, const Decisions *first, Decisions *v)
{
    Decisions all = {0};
    for (size_t i = 0; i < first->len; i++)
        vec_push(&c->arena, &all, first->data[i]);
    for (size_t i = 0; i < v->len; i++)
        vec_push(&c->arena, &all, v->data[i]);
    *v = all;
}

/* A flat @tile is relaid as tiles only for the interchange of a thread's
 * loop with the threads (cpu_interchange.c). The tiles `first` relaid
 * where the next translation interchanged no loop, numbered as in first
 * (NULL: none): they would only add their bookkeeping to the loop as
 * written. *all: every tile first relaid is one. The relay writes its
 * tiles in their order, so the r-th that first relaid is the r-th in
 * next. */
static const IdSet *tiles_in_vain(oklc_ctx *c, const Emit *first, const Emit *next, bool *all)
{
    const IdSet *vain = NULL;
    *all = true;
    for (unsigned n = 0, r = 0; n < first->tiles; n++) {
        if (first->tiles_all_kept || oklc_idset_has(first->tiles_kept, n))
            continue;
        if (oklc_idset_has(next->tiles_interchanged, r++))
            *all = false;
        else
            vain = oklc_idset_add(&c->arena, vain, n);
    }
    return vain;
}

/* The translation of the model, relaid while the backend asks (at most
 * twice); NULL after an error. */
static Emit *translated(oklc_ctx *c, const Backend *be, Model *m, const char *path)
{
    int errors = c->nerrors;
    Emit *E = translate(c, be, c->norm, m, path, NULL, false);
    for (int round = 0; E && c->nerrors == errors && E->relaid && round < 2; round++) {
        Emit *next = relay(c, E);
        if (!next)
            break;
        bool all;
        const IdSet *vain = tiles_in_vain(c, E, next, &all);
        if (vain) {
            if (all && E->relays == E->tile_relays)
                break;              /* the tiles were all it relaid: the first stays */
            /* else the other loops (tiles, a split, a fusion) relaid without them */
            Emit *kept = round ? NULL : keeping(c, E, vain);
            if (kept && !(next = relay(c, E = kept)))
                break;
        }
        /* the decisions written into the relaid text are not made again */
        prepend(c, &E->relaid_decisions, &next->decisions);
        prepend(c, &E->relaid_decisions, &next->relaid_decisions);
        E = next;
    }
    return E;
}

/* The model (OKLC_DUMP_MODEL); for a CPU backend the caller chose, then
 * the decisions of its cost model, from a translation made for them. */
static bool dump(oklc_ctx *c, Model *m, unsigned flags, const char *path)
{
    Buf b;
    oklc_buf_init(&b, &c->arena);
    if (!(flags & OKLC_DUMP_MODEL)) {
        set_output(c, b.data, b.len);
        return true;
    }
    oklc_model_dump(c, m, &b);
    const Backend *be = c->backend_set ? oklc_backend_chosen(c) : NULL;
    if (be && (be->id == OKLC_BACKEND_SERIAL || be->id == OKLC_BACKEND_OPENMP) && !be->plugin) {
        int errors = c->nerrors;
        Emit *E = translated(c, be, m, path);
        if (!E || c->nerrors != errors)
            return false;
        oklc_buf_printf(&b, "\nCPU rewrites (%s backend): %zu decision%s\n", be->name,
                        E->decisions.len, E->decisions.len == 1 ? "" : "s");
        for (size_t i = 0; i < E->decisions.len; i++)
            oklc_buf_printf(&b, "  %s\n", E->decisions.data[i]);
    }
    set_output(c, b.data, b.len);
    return true;
}

/* Each kernel's counts (oklc_stats). */
static bool stats(oklc_ctx *c, Model *m)
{
    Buf b;
    oklc_buf_init(&b, &c->arena);
    if (!oklc_stats_report(c, m, c->stats, &b)) {
        oklc_diag_out_of_memory(c);
        return false;
    }
    set_output(c, b.data, b.len);
    return true;
}

/* The backend the context names; an error when it has none. */
static const Backend *backend(oklc_ctx *c)
{
    const Backend *be = oklc_backend_chosen(c);
    if (!be)
        oklc_diag_error(c, (Loc){0}, "the %s backend is not available yet",
                        oklc_backend_name(c->backend));
    return be;
}

static void deep_thread(void *arg);

/* Every stage in order, up to the one the call asks for. The
 * preprocessor and the normalizer run on the caller's stack; the stages
 * after them on a thread whose stack fits the input (Clang's parser and
 * the walks of the statement tree go as deep as the kernel nests): this
 * function again, from the parse on. Each part arms the arena's
 * out-of-memory jump on its own thread. */
static bool pipeline(Run *r)
{
    oklc_ctx *c = r->c;
    if (!r->deep) {
        size_t stack = 0;
        GUARDED(c, false, {
            bool keep = r->flags & OKLC_KEEP_MACROS;
            bool ok = source(r);
            PPResult *pp = ok && !keep ? oklc_pp_run(c, r->path, (char *)r->text, r->len) : NULL;
            if (r->upto == UPTO_PREPROCESS && pp) {
                Buf b;
                oklc_buf_init(&b, &c->arena);
                oklc_print_tokens(c, pp->toks, pp->ntoks, &b);
                set_output(c, b.data, b.len);
                r->ok = true;
            } else if (r->upto > UPTO_PREPROCESS && ok) {
                c->norm = normalize(r, pp);
                if (c->norm && r->upto == UPTO_NORMALIZE) {
                    set_output(c, c->norm->text, c->norm->len);
                    r->ok = true;
                } else if (c->norm && r->upto > UPTO_NORMALIZE) {
                    stack = oklc_parse_stack(c, pp->toks, pp->ntoks);
                }
            }
        });
        if (!stack)
            return r->ok;
        r->deep = true;
        if (!oklc_run_on_stack(stack, deep_thread, r))
            r->ok = pipeline(r);    /* no thread to be had: here */
        return r->ok;
    }
    GUARDED(c, false, {
        ParseOptions o = {c->clang_args.data, c->clang_args.len, c->wall, false,
                          c->stats || c->count_ops};
        Model *m = oklc_parse(c, c->norm, &o);
        if (m && oklc_sema_check(c, m, &o) && oklc_analyze(c, m, &o) &&
            oklc_plugins_check(c, m))
            c->model = m;
        if (c->model && r->upto == UPTO_CHECK && c->stats)
            r->ok = stats(c, m);
        else if (c->model && r->upto == UPTO_CHECK)
            r->ok = dump(c, m, r->flags, r->path);
        const Backend *be = c->model && r->upto == UPTO_TRANSPILE ? backend(c) : NULL;
        int errors = c->nerrors;    /* a part may say error and go on (a plugin) */
        Emit *E = be ? translated(c, be, m, r->path) : NULL;
        if (E && c->nerrors == errors) {
            c->input_hash = input_hash(c, c->norm, be->name);
            size_t len;
            const char *text = oklc_emit_output(E, c->input_hash, &len);
            r->ok = oklc_plugins_after(c, OKLC_AFTER_TRANSPILE, m, &text, &len) &&
                    c->nerrors == errors;
            if (r->ok)
                set_output(c, text, len);
        }
    });
    return r->ok;
}

static void deep_thread(void *arg)
{
    Run *r = arg;
    r->ok = pipeline(r);
}

static bool run(oklc_ctx *c, Upto upto, const char *path, const char *text, size_t len,
                unsigned flags)
{
    if (!begin(c))
        return false;
    Run r = {.c = c, .path = path, .text = text, .len = len, .flags = flags, .upto = upto};
    return pipeline(&r);
}

/* A buffer's text (NULL: an empty one). */
#define BUFFER(text, len) (text) ? (text) : "", (text) ? (len) : 0

bool oklc_preprocess(oklc_ctx *c, const char *path)
{
    return run(c, UPTO_PREPROCESS, path, NULL, 0, 0);
}

bool oklc_preprocess_buffer(oklc_ctx *c, const char *path, const char *text, size_t len)
{
    return run(c, UPTO_PREPROCESS, path, BUFFER(text, len), 0);
}

bool oklc_normalize(oklc_ctx *c, const char *path, unsigned flags)
{
    return run(c, UPTO_NORMALIZE, path, NULL, 0, flags);
}

bool oklc_normalize_buffer(oklc_ctx *c, const char *path, const char *text, size_t len,
                           unsigned flags)
{
    return run(c, UPTO_NORMALIZE, path, BUFFER(text, len), flags);
}

bool oklc_check(oklc_ctx *c, const char *path, unsigned flags)
{
    return run(c, UPTO_CHECK, path, NULL, 0, flags & ~OKLC_KEEP_MACROS);
}

bool oklc_check_buffer(oklc_ctx *c, const char *path, const char *text, size_t len,
                       unsigned flags)
{
    return run(c, UPTO_CHECK, path, BUFFER(text, len), flags & ~OKLC_KEEP_MACROS);
}

void oklc_set_count_ops(oklc_ctx *c, bool on)
{
    c->count_ops = on;
}

bool oklc_stats(oklc_ctx *c, const char *path, const oklc_stats_options *o)
{
    c->stats = o;
    return run(c, UPTO_CHECK, path, NULL, 0, 0);
}

bool oklc_stats_buffer(oklc_ctx *c, const char *path, const char *text, size_t len,
                       const oklc_stats_options *o)
{
    c->stats = o;
    return run(c, UPTO_CHECK, path, BUFFER(text, len), 0);
}

bool oklc_transpile(oklc_ctx *c, const char *path, unsigned flags)
{
    (void)flags;
    return run(c, UPTO_TRANSPILE, path, NULL, 0, 0);
}

bool oklc_transpile_buffer(oklc_ctx *c, const char *path, const char *text, size_t len,
                           unsigned flags)
{
    (void)flags;
    return run(c, UPTO_TRANSPILE, path, BUFFER(text, len), 0);
}

void oklc_add_instance(oklc_ctx *c, const char *kernel)
{
    if (c->oom || !kernel)
        return;
    GUARDED(c, , {
        const char *k = oklc_arena_strdup(&c->arena, kernel);
        vec_push(&c->arena, &c->instances, k);
    });
}

const char *oklc_metadata(oklc_ctx *c, size_t *len)
{
    if (len)
        *len = c->metadata ? strlen(c->metadata) : 0;
    return c->metadata;
}

const char *oklc_launcher(oklc_ctx *c, size_t *len)
{
    if (len)
        *len = c->launcher ? strlen(c->launcher) : 0;
    return c->launcher;
}

const char *oklc_launcher_metadata(oklc_ctx *c, size_t *len)
{
    if (len)
        *len = c->launcher_metadata ? strlen(c->launcher_metadata) : 0;
    return c->launcher_metadata;
}

/* Files with a name of their own on disk: not the built-in buffers, the
 * "<stdin>"-like names, the preludes Clang sees at /oklc-prelude/, nor the
 * files the host keeps in memory. */
static bool read_from_disk(oklc_ctx *c, const SrcFile *f)
{
    return !f->is_builtin && f->path[0] != '<' && strncmp(f->path, "/oklc-prelude/", 14) &&
           !oklc_mem_file(c, f->path);
}

const char *oklc_input_file(oklc_ctx *c, size_t i)
{
    for (size_t k = 0; k < c->files.len; k++)
        if (read_from_disk(c, c->files.data[k]) && i-- == 0)
            return c->files.data[k]->path;
    return NULL;
}

const char *oklc_input_hash(oklc_ctx *c)
{
    return c->input_hash;
}

const char *oklc_output(oklc_ctx *c, size_t *len)
{
    if (len)
        *len = c->output_len;
    return c->output;
}
