/*
 * oklc.c - the public API: contexts, options, and the stages in order.
 *
 * Each stage entry arms the arena's out-of-memory jump, runs the pipeline
 * up to the stage asked for, and stops after the first stage that reported
 * an error. Nothing here prints: messages wait in the context.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "intrinsics/intrinsics.h"
#include "plugin/plugin.h"
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

static const char *const backend_names[OKLC_BACKEND_COUNT_] = {
    [OKLC_BACKEND_NONE] = "none",     [OKLC_BACKEND_SERIAL] = "serial",
    [OKLC_BACKEND_OPENMP] = "openmp", [OKLC_BACKEND_CUDA] = "cuda",
    [OKLC_BACKEND_HIP] = "hip",       [OKLC_BACKEND_OPENCL] = "opencl",
    [OKLC_BACKEND_DPCPP] = "dpcpp",   [OKLC_BACKEND_METAL] = "metal",
};

bool oklc_backend_from_name(const char *name, oklc_backend *out)
{
    for (int b = 0; b < OKLC_BACKEND_COUNT_; b++) {
        const char *s = backend_names[b], *p = name;
        while (*s && *p && tolower((unsigned char)*p) == *s)
            s++, p++;
        if (!*s && !*p) {
            *out = (oklc_backend)b;
            return true;
        }
    }
    return false;
}

const char *oklc_backend_name(oklc_backend b)
{
    return b >= 0 && b < OKLC_BACKEND_COUNT_ ? backend_names[b] : "?";
}

/* ---- stages -------------------------------------------------------------------- */

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

static char *copy_text(oklc_ctx *c, const char *text, size_t len)
{
    return oklc_arena_strndup(&c->arena, text, len);
}

static bool preprocess(oklc_ctx *c, const char *path, const char *text, size_t len)
{
    if (!begin(c))
        return false;
    bool ok = false;
    GUARDED(c, false, {
        const char *t = text ? copy_text(c, text, len) : NULL;
        PPResult *r = oklc_plugins_source(c, path, &t, &len) ? oklc_pp_run(c, path, (char *)t, len)
                                                            : NULL;
        if (r) {
            Buf b;
            oklc_buf_init(&b, &c->arena);
            oklc_print_tokens(c, r->toks, r->ntoks, &b);
            set_output(c, b.data, b.len);
            ok = true;
        }
    });
    return ok;
}

bool oklc_preprocess(oklc_ctx *c, const char *path)
{
    return preprocess(c, path, NULL, 0);
}

bool oklc_preprocess_buffer(oklc_ctx *c, const char *path, const char *text, size_t len)
{
    return preprocess(c, path, text ? text : "", text ? len : 0);
}

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

static bool normalize(oklc_ctx *c, const char *path, const char *text, size_t len,
                      unsigned flags)
{
    if (!begin(c))
        return false;
    bool ok = false;
    GUARDED(c, false, {
        const char *t = text ? copy_text(c, text, len) : NULL;
        Normalized *nz = NULL;
        if (!oklc_plugins_source(c, path, &t, &len)) {
            nz = NULL;
        } else if (flags & OKLC_KEEP_MACROS) {
            nz = keep_macros(c, path, (char *)t, len);
        } else {
            PPResult *r = oklc_pp_run(c, path, (char *)t, len);
            if (r)
                nz = oklc_normalize_tokens(c, r->toks, r->ntoks);
        }
        const char *out = nz ? nz->text : NULL;
        size_t out_len = nz ? nz->len : 0;
        if (nz && oklc_plugins_after(c, OKLC_AFTER_NORMALIZE, NULL, &out, &out_len)) {
            set_output(c, nz->text, nz->len);
            ok = true;
        }
    });
    return ok;
}

bool oklc_normalize(oklc_ctx *c, const char *path, unsigned flags)
{
    return normalize(c, path, NULL, 0, flags);
}

bool oklc_normalize_buffer(oklc_ctx *c, const char *path, const char *text, size_t len,
                           unsigned flags)
{
    return normalize(c, path, text ? text : "", text ? len : 0, flags);
}

/* The stages after the normalizer (parse, check, and then what the call
 * asks for) run on a thread whose stack fits the input: Clang's parser
 * and the walks of the statement tree go as deep as the kernel nests. */
typedef struct Deep {
    oklc_ctx   *c;
    const char *path;
    unsigned    flags;
    bool        translate;   /* transpile; else check */
    bool        ok;
} Deep;

static bool translate(oklc_ctx *c, const Model *m, const char *path);

static bool dump(oklc_ctx *c, Model *m, unsigned flags)
{
    Buf b;
    oklc_buf_init(&b, &c->arena);
    if (flags & OKLC_DUMP_MODEL)
        oklc_model_dump(c, m, &b);
    set_output(c, b.data, b.len);
    return true;
}

static bool deep_stages(Deep *d)
{
    oklc_ctx *c = d->c;
    bool ok = false;
    GUARDED(c, false, {
        ParseOptions o = {c->clang_args.data, c->clang_args.len, c->wall, false};
        Model *m = oklc_parse(c, c->norm, &o);
        if (m && oklc_sema_check(c, m, &o) && oklc_plugins_check(c, m)) {
            c->model = m;
            ok = d->translate ? translate(c, m, d->path) : dump(c, m, d->flags);
        }
    });
    return ok;
}

static void deep_thread(void *arg)
{
    Deep *d = arg;
    d->ok = deep_stages(d);
}

/* Preprocess and normalize here, the rest on a stack of its own (or here
 * when no thread can be had). */
static bool front_to_back(oklc_ctx *c, const char *path, const char *text, size_t len, Deep *d)
{
    if (!begin(c))
        return false;
    size_t stack = 0;
    GUARDED(c, false, {
        const char *t = text ? copy_text(c, text, len) : NULL;
        PPResult *r = oklc_plugins_source(c, path, &t, &len) ? oklc_pp_run(c, path, (char *)t, len)
                                                            : NULL;
        c->norm = r ? oklc_normalize_tokens(c, r->toks, r->ntoks) : NULL;
        const char *nt = c->norm ? c->norm->text : NULL;
        size_t nlen = c->norm ? c->norm->len : 0;
        if (c->norm && !oklc_plugins_after(c, OKLC_AFTER_NORMALIZE, NULL, &nt, &nlen))
            c->norm = NULL;
        stack = c->norm ? oklc_parse_stack(c, r->toks, r->ntoks) : 0;
    });
    if (!stack)
        return false;
    if (!oklc_run_on_stack(stack, deep_thread, d))
        d->ok = deep_stages(d);
    return d->ok;
}

static bool check(oklc_ctx *c, const char *path, const char *text, size_t len, unsigned flags)
{
    Deep d = {.c = c, .path = path, .flags = flags};
    return front_to_back(c, path, text, len, &d);
}

bool oklc_check(oklc_ctx *c, const char *path, unsigned flags)
{
    return check(c, path, NULL, 0, flags);
}

bool oklc_check_buffer(oklc_ctx *c, const char *path, const char *text, size_t len,
                       unsigned flags)
{
    return check(c, path, text ? text : "", text ? len : 0, flags);
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

/* The backend's edits of the text nz, whose model is m; NULL after an
 * error. */
static Emit *emit(oklc_ctx *c, const Backend *be, const Normalized *nz, Model *m,
                  const char *path)
{
    Emit *E = oklc_arena_alloc(&c->arena, sizeof *E);
    *E = (Emit){.c = c, .nz = nz, .m = m, .be = be, .path = path};
    oklc_edits_init(&E->ed, &c->arena, nz->text, (uint32_t)nz->len);
    oklc_buf_init(&E->tail, &c->arena);
    oklc_buf_init(&E->head, &c->arena);
    oklc_plugins_emit(E);
    if (!oklc_emit_intrinsics(E) || !be->translate(E))    /* the user's intrinsics first */
        return NULL;
    oklc_emit_half(E);
    return E;
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
 * each translation. */
static Emit *emit_relaid(oklc_ctx *c, Emit *first)
{
    if (!first->relaid || oklc_plugins_identity(c))
        return first;
    const char *text = oklc_edits_text(first->relaid, 0, (uint32_t)first->nz->len);
    size_t len = strlen(text);
    if (len == first->nz->len && !memcmp(text, first->nz->text, len))
        return first;    /* a relay that wrote nothing in the end */
    Diag **tail = c->diags_tail;
    int errors = c->nerrors, warnings = c->nwarnings;
    ParseOptions o = {c->clang_args.data, c->clang_args.len, false, true};
    Normalized *nz = oklc_normalize_raw_view(c, oklc_pp_add_buffer(c, "<split>", text, len, false));
    Model *m = nz && c->nerrors == errors ? oklc_parse(c, nz, &o) : NULL;
    Emit *E = m && oklc_sema_check(c, m, &o) && c->nerrors == errors
                  ? emit(c, first->be, nz, m, first->path) : NULL;
    if (c->nerrors != errors)
        E = NULL;
    *tail = NULL;
    c->diags_tail = tail;
    c->nerrors = errors;
    c->nwarnings = warnings;
    return E ? E : first;
}

static bool translate(oklc_ctx *c, const Model *m, const char *path)
{
    const Backend *be = c->backend_name ? oklc_backend_find(c, c->backend_name)
                                        : oklc_backend_get(c, c->backend);
    if (!be) {
        oklc_diag_error(c, (Loc){0}, "the %s backend is not available yet",
                        oklc_backend_name(c->backend));
        return false;
    }
    int errors = c->nerrors;
    Emit *E = emit(c, be, c->norm, (Model *)m, path);
    if (!E || c->nerrors != errors)    /* a part that said error and went on (a plugin) */
        return false;
    for (int round = 0; round < 2 && E->relaid; round++) {
        Emit *next = emit_relaid(c, E);
        if (next == E)
            break;
        E = next;
    }
    c->input_hash = input_hash(c, c->norm, be->name);
    Buf out;
    oklc_buf_init(&out, &c->arena);
    oklc_buf_printf(&out, "/* Generated by oklc %s (backend: %s) from %s. */\n",
                    OKLC_VERSION_STRING, oklc_comment_text(&c->arena, be->name),
                    oklc_comment_text(&c->arena, path));
    oklc_buf_puts(&out, E->head.data ? E->head.data : "");
    if (be->includes)
        oklc_buf_puts(&out, be->includes);
    oklc_buf_puts(&out, be->preamble);
    if (be->more)
        oklc_buf_puts(&out, be->more);
    oklc_buf_puts(&out, "\n/* ---- the kernels ---- */\n");
    oklc_edits_render(&E->ed, 0, (uint32_t)E->nz->len, &out);
    oklc_buf_puts(&out, E->tail.data ? E->tail.data : "");
    if (c->convention == OKLC_CONVENTION_OCCA)
        oklc_occa_metadata(c, E->kernels.data, E->kernels.len, c->input_hash, E->launcher != NULL);
    else
        oklc_metadata_json(c, E->kernels.data, E->kernels.len, c->input_hash);
    c->launcher = (char *)E->launcher;
    const char *text = out.data;
    size_t len = out.len;
    if (!oklc_plugins_after(c, OKLC_AFTER_TRANSPILE, m, &text, &len) || c->nerrors != errors)
        return false;
    set_output(c, text, len);
    return true;
}

static bool transpile(oklc_ctx *c, const char *path, const char *text, size_t len)
{
    Deep d = {.c = c, .path = path, .translate = true};
    return front_to_back(c, path, text, len, &d);
}

bool oklc_transpile(oklc_ctx *c, const char *path, unsigned flags)
{
    (void)flags;
    return transpile(c, path, NULL, 0);
}

bool oklc_transpile_buffer(oklc_ctx *c, const char *path, const char *text, size_t len,
                           unsigned flags)
{
    (void)flags;
    return transpile(c, path, text ? text : "", text ? len : 0);
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
