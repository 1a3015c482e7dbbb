/*
 * plugin.c - plugins: loaded per context, each entry in the context's
 * registries beside the built-in ones (include/oklc/plugin.h).
 *
 * Loading first checks the file, before any of its code can run: it and
 * every folder above it belong to us or root and only their owner may
 * write them (a sticky folder such as /tmp excepted; the kernel cache's
 * rule), and its dynamic symbol table defines oklc_plugin_abi (dlopen
 * would run a library's constructors). Then it opens the shared object
 * (dlopen), compares its oklc_plugin_abi with ours before calling
 * anything in it, and calls oklc_plugin_init with the host's table; what
 * it registers is copied into the arena.
 * Every failure is a diagnostic, never a crash: a missing file, another
 * ABI version, no entry point, an init that says it failed.
 *
 * The pipeline (oklc.c) calls in at fixed points: the input before the
 * preprocessor, the normalized text, the checked model (where the plugins'
 * attributes are placed and checked), the backend's edits before it
 * translates (their text), and its output. A plugin backend is a built-in
 * one's table with translate() wrapped: the plugin's text at the top and
 * bottom of each kernel's body and of the file.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plugin.h"
#include "../intrinsics/intrinsics.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

typedef struct Plugin {
    const char *path;
    void       *handle;
    const char *hash;          /* of the file's bytes */
} Plugin;

typedef struct Stage {
    oklc_plugin_stage s;
    Plugin           *p;
} Stage;

typedef struct PluginBackend {
    oklc_plugin_backend d;
    const Backend      *base;
    Plugin             *p;
} PluginBackend;

typedef struct PluginAttr {
    oklc_plugin_attr a;
    Plugin          *p;
} PluginAttr;

/* A plugin attribute in the file, placed by the check. */
typedef struct Use {
    Attr             *attr;
    const PluginAttr *pa;
    unsigned          on;      /* OKLC_ON_* */
    const Kernel     *k;
    size_t            kernel;  /* its index in the model */
} Use;

typedef struct Plugins {
    VEC(Plugin *) loaded;
    VEC(Stage) stages;
    VEC(Use) uses;
    oklc_model_view *view;
} Plugins;

struct oklc_plugin_call {
    oklc_ctx          *c;
    Plugin            *p;
    oklc_plugin_point  point;      /* 0: registration or a callback */
    const char        *text;
    size_t             len;
    bool               replaceable;
    uint32_t           src_view;   /* OKLC_BEFORE_PREPROCESS: the input, for offsets */
    const Model       *m;
    Emit              *E;
};

static Plugins *plugins(oklc_ctx *c)
{
    if (!c->plugins)
        c->plugins = oklc_arena_alloc(&c->arena, sizeof(Plugins));
    return c->plugins;
}

static const char *keep(oklc_ctx *c, const char *s)
{
    return s ? oklc_arena_strdup(&c->arena, s) : NULL;
}

static bool is_name(const char *s)
{
    if (!s || !*s || (*s >= '0' && *s <= '9'))
        return false;
    for (; *s; s++)
        if (!oklc_ident_char(*s))
            return false;
    return true;
}

static int fail(oklc_plugin_call *call, const char *fmt, ...) OKLC_PRINTF(2, 3);
static int fail(oklc_plugin_call *call, const char *fmt, ...)
{
    Buf b;
    oklc_buf_init(&b, &call->c->arena);
    va_list ap;
    va_start(ap, fmt);
    oklc_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    oklc_diag_error(call->c, (Loc){0}, "plugin '%s': %s", call->p->path, b.data);
    return 1;
}

/* ---- the model, as plugins see it ---------------------------------------------- */

static oklc_pos pos_at(oklc_ctx *c, uint32_t off)
{
    oklc_pos p = {.offset = off};
    Loc l = oklc_norm_loc(c->norm, off);
    if (l.file && l.file < c->views.len) {
        const FileView *v = &c->views.data[l.file];
        p.file = v->name;
        p.line = (unsigned)oklc_presumed_line(c, l);
        p.column = l.col;
    }
    return p;
}

static const char *loop_kind(LoopKind k)
{
    return k == LOOP_OUTER ? "outer" : k == LOOP_INNER ? "inner" : "regular";
}

static void view_kernel(oklc_ctx *c, const Kernel *k, oklc_kernel_view *kv)
{
    Arena *a = &c->arena;
    kv->name = k->name;
    kv->pos = pos_at(c, k->name_off);
    oklc_param_view *ps = oklc_arena_alloc(a, (k->nparams + 1) * sizeof *ps);
    for (size_t i = 0; i < k->nparams; i++)
        ps[i] = (oklc_param_view){k->params[i]->name, k->params[i]->type.spelling};
    kv->params = ps, kv->nparams = k->nparams;
    oklc_loop_view *ls = oklc_arena_alloc(a, (k->nloops + 1) * sizeof *ls);
    for (size_t i = 0; i < k->nloops; i++) {
        const Loop *l = k->loops[i];
        oklc_loop_view *lv = &ls[i];
        lv->kind = loop_kind(l->kind);
        lv->axis = l->axis;
        lv->tile_part = l->tile_part;
        lv->parent = -1;
        for (size_t j = 0; j < i; j++)
            if (k->loops[j] == l->parent)
                lv->parent = (int)j;
        lv->iter = l->iter;
        if (l->analyzed)
            lv->start = l->start, lv->bound = l->bound, lv->stride = l->stride,
            lv->trips = l->trips;
        const char **names = oklc_arena_alloc(a, (l->nattrs + 1) * sizeof *names);
        for (size_t j = 0; j < l->nattrs; j++)
            names[j] = l->attrs[j]->name;
        lv->attrs = names, lv->nattrs = l->nattrs;
        lv->pos = pos_at(c, l->stmt.begin);
    }
    kv->loops = ls, kv->nloops = k->nloops;
    kv->nouters = k->nouters;
}

static const oklc_model_view *model_view(oklc_ctx *c, const Model *m)
{
    Plugins *P = plugins(c);
    if (P->view || !m)
        return P->view;
    oklc_model_view *v = oklc_arena_alloc(&c->arena, sizeof *v);
    oklc_kernel_view *ks = oklc_arena_alloc(&c->arena, (m->nkernels + 1) * sizeof *ks);
    for (size_t i = 0; i < m->nkernels; i++)
        view_kernel(c, m->kernels[i], &ks[i]);
    v->kernels = ks, v->nkernels = m->nkernels;
    v->file = c->pp && c->pp->main_view < c->views.len ? c->views.data[c->pp->main_view].name
                                                       : NULL;
    P->view = v;
    return v;
}

/* ---- the host's table ------------------------------------------------------------ */

static int add_attribute(oklc_plugin_call *call, const oklc_plugin_attr *a)
{
    oklc_ctx *c = call->c;
    if (!a || !is_name(a->name))
        return fail(call, "an attribute needs a name (an identifier)");
    if (a->min_args < 0 || (a->max_args >= 0 && a->max_args < a->min_args))
        return fail(call, "attribute '@%s': wrong argument counts", a->name);
    if (!(a->on & (OKLC_ON_LOOP | OKLC_ON_DECL | OKLC_ON_STMT | OKLC_ON_KERNEL)))
        return fail(call, "attribute '@%s' may stand nowhere (its 'on' is 0)", a->name);
    PluginAttr *pa = oklc_arena_alloc(&c->arena, sizeof *pa);
    pa->a = *a;
    pa->a.name = keep(c, a->name);
    pa->p = call->p;
    AttrSpec *s = oklc_arena_alloc(&c->arena, sizeof *s);
    *s = (AttrSpec){pa->a.name, ATTR_PLUGIN, a->min_args, a->max_args, false, &pa->a};
    if (!oklc_attr_add(c, s))
        return fail(call, "the attribute '@%s' exists already", a->name);
    return 0;
}

static bool plugin_translate(Emit *E);

/* A backend's name: -b NAME, and words of the output's first comment. */
static bool is_backend_name(const char *s)
{
    if (!s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
        return false;
    for (; *s; s++)
        if (!oklc_ident_char(*s) && *s != '-' && *s != '.')
            return false;
    return true;
}

static int add_backend(oklc_plugin_call *call, const oklc_plugin_backend *b)
{
    oklc_ctx *c = call->c;
    if (!b || !is_backend_name(b->name))
        return fail(call, "a backend needs a name: a letter, then letters, digits, '_', '-' or "
                          "'.' ('%s')", b && b->name ? b->name : "(null)");
    const Backend *base = b->base ? oklc_backend_find(c, b->base) : NULL;
    if (!base || base->plugin)
        return fail(call, "backend '%s': its base '%s' is not a built-in backend", b->name,
                    b->base ? b->base : "(null)");
    PluginBackend *pb = oklc_arena_alloc(&c->arena, sizeof *pb);
    pb->d = *b;
    pb->d.name = keep(c, b->name);
    pb->d.base = base->name;
    pb->d.file_begin = keep(c, b->file_begin);
    pb->d.file_end = keep(c, b->file_end);
    pb->base = base;
    pb->p = call->p;
    Backend *be = oklc_arena_alloc(&c->arena, sizeof *be);
    *be = *base;
    be->name = pb->d.name;
    be->translate = plugin_translate;
    be->plugin = pb;
    if (!oklc_backend_add(c, be))
        return fail(call, "the backend '%s' exists already", b->name);
    return 0;
}

static int add_stage(oklc_plugin_call *call, const oklc_plugin_stage *s)
{
    oklc_ctx *c = call->c;
    if (!s || !s->run || s->point < OKLC_BEFORE_PREPROCESS || s->point > OKLC_AFTER_TRANSPILE)
        return fail(call, "a stage needs a run function and a point");
    Stage st = {*s, call->p};
    st.s.name = keep(c, s->name ? s->name : "(unnamed)");
    vec_push(&c->arena, &plugins(c)->stages, st);
    return 0;
}

/* (within oklc_load_plugin's out-of-memory guard: not the public call,
 * whose own guard would end the outer one) */
static int add_intrinsic(oklc_plugin_call *call, const oklc_intrinsic *in)
{
    if (!in) {
        oklc_diag_error(call->c, (Loc){0}, "add_intrinsic: the description is NULL");
        return 1;
    }
    return oklc_intrinsic_add(call->c, in) ? 0 : 1;
}

static void report(oklc_plugin_call *call, oklc_diag_level level, unsigned offset,
                   const char *message)
{
    oklc_ctx *c = call->c;
    DiagLevel lv = level == OKLC_ERROR ? DIAG_ERROR : level == OKLC_WARNING ? DIAG_WARNING
                                                                              : DIAG_NOTE;
    if (!message)
        message = "(no message)";
    if (offset == OKLC_NO_OFFSET)
        oklc_diag(c, lv, (Loc){0}, "%s", message);
    else if (call->point == OKLC_BEFORE_PREPROCESS)
        oklc_diag(c, lv, oklc_src_loc(c, call->src_view, offset <= call->len ? offset : 0), "%s",
                  message);
    else if (c->norm && offset <= c->norm->len)
        oklc_model_diag(c, lv, offset, "%s", message);
    else
        oklc_diag(c, lv, (Loc){0}, "%s", message);
}

static const char *text(oklc_plugin_call *call, size_t *len)
{
    if (len)
        *len = call->text ? call->len : 0;
    return call->text;
}

static int replace_text(oklc_plugin_call *call, const char *t, size_t len)
{
    if (!call->replaceable || !t)
        return 1;
    call->text = oklc_arena_strndup(&call->c->arena, t, len);
    call->len = len;
    return 0;
}

static const oklc_model_view *model(oklc_plugin_call *call)
{
    return call->m ? model_view(call->c, call->m) : NULL;
}

static const char *backend(oklc_plugin_call *call, int base)
{
    oklc_ctx *c = call->c;
    const Backend *be = base ? oklc_backend_builtin(c->backend) : oklc_backend_chosen(c);
    return be ? be->name : NULL;
}

static const oklc_plugin_host host = {
    .abi = OKLC_PLUGIN_ABI_VERSION,
    .version = OKLC_VERSION_STRING,
    .add_attribute = add_attribute,
    .add_backend = add_backend,
    .add_stage = add_stage,
    .add_intrinsic = add_intrinsic,
    .report = report,
    .text = text,
    .replace_text = replace_text,
    .model = model,
    .backend = backend,
};

/* ---- loading --------------------------------------------------------------------- */

static const char *file_hash(oklc_ctx *c, const char *path, const char *bytes, size_t len)
{
    XXH128_hash_t h = bytes ? XXH3_128bits(bytes, len) : XXH3_128bits(path, strlen(path));
    return oklc_arena_printf(&c->arena, "%016llx%016llx", (unsigned long long)h.high64,
                             (unsigned long long)h.low64);
}

/* Who may change `path` (the file, or a folder above it) other than us
 * and root: why, or NULL when no one. */
static const char *others_may_write(oklc_ctx *c, const char *path, bool folder)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return oklc_arena_printf(&c->arena, "'%s' cannot be checked: %s", path, strerror(errno));
    if (st.st_uid != 0 && st.st_uid != geteuid())
        return oklc_arena_printf(&c->arena, "'%s' belongs to user %ld, not to you (%ld) or root",
                                 path, (long)st.st_uid, (long)geteuid());
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(folder && (st.st_mode & S_ISVTX)))
        return oklc_arena_printf(&c->arena, "others can write '%s' (mode %03o)", path,
                                 (unsigned)(st.st_mode & 0777));
    return NULL;
}

/* The plugin's file and every folder above it (as named, and as its links
 * resolve): only we and root may change them. A file that is not there is
 * dlopen's to report. */
static const char *untrusted(oklc_ctx *c, const char *path)
{
    char *real = realpath(path, NULL);
    if (!real)
        return NULL;
    const char *names[2] = {oklc_arena_strdup(&c->arena, real), path};
    free(real);
    const char *why = others_may_write(c, names[0], false);
    for (int n = 0; n < 2 && !why; n++) {
        char *dir = oklc_arena_strdup(&c->arena, names[n]);
        for (char *slash; !why && (slash = strrchr(dir, '/'));) {
            bool top = slash == dir;
            slash[top] = '\0';    /* "/a/b" -> "/a" -> "/" */
            why = others_may_write(c, dir, true);
            if (top)
                break;
        }
    }
    return why;
}

/* Does the ELF file define `name` in its dynamic symbol table? Read from
 * the file, so that nothing of a library that is no plugin runs. */
static bool defines_symbol(const char *bytes, size_t len, const char *name)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)bytes;
    if (len < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
        eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
        eh->e_shoff > len || (len - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum)
        return false;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(bytes + eh->e_shoff);
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum ||
            sh[i].sh_offset > len || sh[i].sh_size > len - sh[i].sh_offset)
            continue;
        const Elf64_Shdr *str = &sh[sh[i].sh_link];
        if (str->sh_offset > len || str->sh_size > len - str->sh_offset)
            continue;
        const Elf64_Sym *sym = (const Elf64_Sym *)(bytes + sh[i].sh_offset);
        const char *names = bytes + str->sh_offset;
        size_t n = strlen(name);
        for (size_t k = 0; k < sh[i].sh_size / sizeof *sym; k++)
            if (sym[k].st_shndx != SHN_UNDEF && sym[k].st_name < str->sh_size &&
                str->sh_size - sym[k].st_name > n && !memcmp(names + sym[k].st_name, name, n + 1))
                return true;
    }
    return false;
}

bool oklc_plugin_load(oklc_ctx *c, const char *path)
{
    Loc none = {0};
    if (!strchr(path, '/')) {    /* dlopen would search the library folders for it */
        oklc_diag_error(c, none, "cannot load plugin '%s': give its path ('./%s'), so that the "
                        "file checked is the file loaded", path, path);
        return false;
    }
    const char *why = untrusted(c, path);
    if (why) {
        oklc_diag_error(c, none, "cannot load plugin '%s': %s, who could put code into it; "
                        "only you and root may write the plugin and the folders above it",
                        path, why);
        return false;
    }
    size_t len = 0;
    const char *bytes = oklc_read_file(c, path, &len);
    if (bytes && (len < SELFMAG || memcmp(bytes, ELFMAG, SELFMAG))) {
        oklc_diag_error(c, none, "'%s' is not an oklc plugin: not a shared object (ELF)", path);
        return false;
    }
    if (bytes && !defines_symbol(bytes, len, "oklc_plugin_abi")) {
        oklc_diag_error(c, none, "'%s' is not an oklc plugin: it defines no 'oklc_plugin_abi' "
                                 "(OKLC_PLUGIN_ABI in include/oklc/plugin.h)",
                        path);
        return false;
    }
    dlerror();
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *err = dlerror();
        oklc_diag_error(c, none, "cannot load plugin '%s': %s", path, err ? err : "dlopen failed");
        return false;
    }
    const unsigned *abi = dlsym(h, "oklc_plugin_abi");
    if (!abi) {
        oklc_diag_error(c, none, "'%s' is not an oklc plugin: it defines no 'oklc_plugin_abi' "
                                 "(OKLC_PLUGIN_ABI in include/oklc/plugin.h)",
                        path);
        dlclose(h);
        return false;
    }
    if (*abi != OKLC_PLUGIN_ABI_VERSION) {
        oklc_diag_error(c, none, "plugin '%s' is built for plugin ABI version %u, but oklc %s "
                                 "has plugin ABI version %u: rebuild it against this oklc's "
                                 "plugin.h",
                        path, *abi, OKLC_VERSION_STRING, OKLC_PLUGIN_ABI_VERSION);
        dlclose(h);
        return false;
    }
    oklc_plugin_init_fn init;
    void *sym = dlsym(h, "oklc_plugin_init");
    memcpy(&init, &sym, sizeof init);    /* POSIX: the representation is the same */
    if (!sym) {
        oklc_diag_error(c, none, "plugin '%s' has no entry point 'oklc_plugin_init'", path);
        dlclose(h);
        return false;
    }
    Plugins *P = plugins(c);
    const char *hash = file_hash(c, path, bytes, len);
    for (size_t i = 0; i < P->loaded.len; i++)
        if (!strcmp(P->loaded.data[i]->hash, hash)) {    /* the same plugin twice */
            dlclose(h);
            return true;
        }
    Plugin *p = oklc_arena_alloc(&c->arena, sizeof *p);
    *p = (Plugin){keep(c, path), h, hash};
    vec_push(&c->arena, &P->loaded, p);
    oklc_plugin_call call = {.c = c, .p = p};
    int before = c->nerrors;
    int r = init(&host, &call);
    if (r || c->nerrors > before) {
        if (c->nerrors == before)
            oklc_diag_error(c, none, "plugin '%s': its initialization failed (oklc_plugin_init "
                                     "returned %d)",
                            path, r);
        return false;
    }
    return true;
}

void oklc_plugins_unload(oklc_ctx *c)
{
    if (!c->plugins)
        return;
    for (size_t i = 0; i < c->plugins->loaded.len; i++)
        dlclose(c->plugins->loaded.data[i]->handle);
    c->plugins->loaded.len = 0;
}

const char *oklc_plugins_identity(oklc_ctx *c)
{
    if (!c->plugins || !c->plugins->loaded.len)
        return NULL;
    Buf b;
    oklc_buf_init(&b, &c->arena);
    for (size_t i = 0; i < c->plugins->loaded.len; i++)
        oklc_buf_printf(&b, "plugin %s\n", c->plugins->loaded.data[i]->hash);
    return b.data;
}

/* ---- stages ------------------------------------------------------------------------ */

static bool has_stage(oklc_ctx *c, oklc_plugin_point pt)
{
    if (!c->plugins)
        return false;
    for (size_t i = 0; i < c->plugins->stages.len; i++)
        if (c->plugins->stages.data[i].s.point == pt)
            return true;
    return false;
}

static bool run_stages(oklc_ctx *c, oklc_plugin_call *call)
{
    for (size_t i = 0; i < c->plugins->stages.len; i++) {
        const Stage *st = &c->plugins->stages.data[i];
        if (st->s.point != call->point)
            continue;
        call->p = st->p;
        int before = c->nerrors;
        int r = st->s.run(st->s.user, call);
        if (r || c->nerrors > before) {
            if (c->nerrors == before)
                oklc_diag_error(c, (Loc){0}, "plugin '%s': its stage '%s' failed", st->p->path,
                                st->s.name);
            return false;
        }
    }
    return true;
}

bool oklc_plugins_source(oklc_ctx *c, const char *path, const char **textp, size_t *len)
{
    if (!has_stage(c, OKLC_BEFORE_PREPROCESS))
        return true;
    if (!*textp) {
        char *t = oklc_read_file(c, path, len);
        if (!t) {
            oklc_diag_error(c, (Loc){0}, "cannot open '%s': %s", path, strerror(errno));
            return false;
        }
        *textp = t;
    }
    SrcFile *f = oklc_src_new(c, path, *textp, *len, false);
    oklc_plugin_call call = {.c = c, .point = OKLC_BEFORE_PREPROCESS, .text = *textp,
                             .len = *len, .replaceable = true,
                             .src_view = oklc_view_new(c, f, path, 0)};
    if (!run_stages(c, &call))
        return false;
    *textp = call.text, *len = call.len;
    return true;
}

bool oklc_plugins_after(oklc_ctx *c, oklc_plugin_point point, const Model *m,
                        const char **textp, size_t *len)
{
    if (!has_stage(c, point))
        return true;
    oklc_plugin_call call = {.c = c, .point = point, .text = *textp, .len = *len,
                             .replaceable = point == OKLC_AFTER_TRANSPILE, .m = m};
    if (!run_stages(c, &call))
        return false;
    *textp = call.text, *len = call.len;
    return true;
}

/* ---- attributes ------------------------------------------------------------------- */

/* Does statement s begin where attribute a belongs (at its anchor, or at
 * the [[...]] that holds it, where Clang's range starts there)? */
static bool starts_at(const Normalized *nz, const Stmt *s, const Attr *a)
{
    if (s->range.begin == a->anchor_off)
        return true;
    for (size_t i = 0; i < nz->nspecs; i++)
        if (a->off >= nz->specs[i].off && a->off < nz->specs[i].end)
            return s->range.begin == nz->specs[i].off;
    return false;
}

/* Where attribute a stands: a kernel, or a statement of one (found by a
 * walk with a stack of its own: statements nest as deep as the user's). */
static void place(oklc_ctx *c, const Model *m, Use *u)
{
    const Attr *a = u->attr;
    for (size_t i = 0; i < m->nkernels; i++) {
        const Kernel *k = m->kernels[i];
        u->k = k, u->kernel = i;
        if (a->anchor == ANCHOR_NEXT && a->anchor_off >= k->decl.begin &&
            a->anchor_off <= k->name_off) {
            u->on = OKLC_ON_KERNEL;
            return;
        }
        if (!k->root || !oklc_in_range(k->body, a->anchor_off))
            continue;
        if (a->anchor == ANCHOR_PREV) {
            u->on = OKLC_ON_DECL;
            return;
        }
        VEC(const Stmt *) stack = {0};
        vec_push(&c->arena, &stack, k->root);
        while (stack.len) {
            const Stmt *s = stack.data[--stack.len];
            if (s != k->root && starts_at(c->norm, s, a)) {
                u->on = s->kind == ST_FOR ? OKLC_ON_LOOP
                        : s->kind == ST_DECL ? OKLC_ON_DECL : OKLC_ON_STMT;
                return;
            }
            for (size_t j = s->nkids; j-- > 0;)
                vec_push(&c->arena, &stack, s->kids[j]);
        }
    }
    u->k = NULL, u->on = 0;
}

static const char *places(oklc_ctx *c, unsigned on)
{
    static const char *const names[] = {"for loops", "declarations in a kernel",
                                        "statements in a kernel", "kernels"};
    Buf b;
    oklc_buf_init(&b, &c->arena);
    int n = 0, total = 0;
    for (int i = 0; i < 4; i++)
        total += (on >> i) & 1;
    for (int i = 0; i < 4; i++)
        if (on & (1u << i))
            oklc_buf_printf(&b, "%s%s", n++ == 0 ? "" : n == total ? " and " : ", ", names[i]);
    return b.data;
}

static oklc_attr_view attr_view(oklc_ctx *c, const Use *u)
{
    const Attr *a = u->attr;
    const char **args = oklc_arena_alloc(&c->arena, ((size_t)a->nargs + 1) * sizeof *args);
    for (int i = 0; i < a->nargs; i++)
        args[i] = a->args[i].text;
    return (oklc_attr_view){a->name, args, a->nargs, u->on, u->k ? u->k->name : NULL,
                            pos_at(c, a->off)};
}

bool oklc_plugins_check(oklc_ctx *c, const Model *m)
{
    if (!c->plugins)
        return true;
    Plugins *P = c->plugins;
    int before = c->nerrors;
    const Normalized *nz = c->norm;
    for (size_t i = 0; i < nz->nattrs; i++) {
        Attr *a = nz->attrs[i];
        if (a->id != ATTR_PLUGIN)
            continue;
        const AttrSpec *s = oklc_attr_lookup(c, a->name, strlen(a->name));
        Use u = {.attr = a, .pa = (const PluginAttr *)((const char *)s->plugin -
                                                         offsetof(PluginAttr, a))};
        place(c, m, &u);
        if (!(u.on & u.pa->a.on)) {
            oklc_model_error(c, a->off, "'@%s' cannot be applied here; it applies to %s only",
                             a->name, places(c, u.pa->a.on));
            continue;
        }
        vec_push(&c->arena, &P->uses, u);
        if (!u.pa->a.check)
            continue;
        oklc_plugin_call call = {.c = c, .p = u.pa->p, .m = m};
        oklc_attr_view v = attr_view(c, &u);
        int errs = c->nerrors;
        if (u.pa->a.check(u.pa->a.user, &call, &v) && c->nerrors == errs)
            oklc_model_error(c, a->off, "'@%s' is not valid here (its plugin's check failed)",
                             a->name);
    }
    if (c->nerrors != before)
        return false;
    const char *t = nz->text;
    size_t len = nz->len;
    return oklc_plugins_after(c, OKLC_AFTER_CHECK, m, &t, &len);
}

void oklc_plugins_emit(Emit *E)
{
    oklc_ctx *c = E->c;
    if (!c->plugins)
        return;
    for (size_t i = 0; i < c->plugins->uses.len; i++) {
        Use *u = &c->plugins->uses.data[i];
        if (!u->pa->a.emit)
            continue;
        oklc_plugin_call call = {.c = c, .p = u->pa->p, .m = E->m, .E = E};
        oklc_attr_view v = attr_view(c, u);
        const char *t = u->pa->a.emit(u->pa->a.user, &call, &v);
        if (!t || !*t)
            continue;
        t = oklc_arena_strdup(&c->arena, t);
        if (u->on == OKLC_ON_KERNEL)
            oklc_edit_after(&E->ed, u->k->body.begin + 1,
                            oklc_arena_printf(&c->arena, "\n    %s", t));
        else    /* on its own line, before the statement (its [[...]] line goes) */
            oklc_edit_before(&E->ed, u->attr->anchor_off,
                             oklc_arena_printf(&c->arena, "%s\n%s", t,
                                               oklc_emit_indent(E, u->attr->anchor_off)));
    }
}

/* ---- backends ---------------------------------------------------------------------- */

static bool plugin_translate(Emit *E)
{
    oklc_ctx *c = E->c;
    const PluginBackend *pb = E->be->plugin;
    const oklc_model_view *v = model_view(c, E->m);
    oklc_plugin_call call = {.c = c, .p = pb->p, .m = E->m, .E = E};
    for (size_t i = 0; i < E->m->nkernels; i++) {
        const Kernel *k = E->m->kernels[i];
        const char *t;
        if (!k->root || k->body.end <= k->body.begin || E->nz->text[k->body.end - 1] != '}')
            continue;
        if (pb->d.kernel_begin && (t = pb->d.kernel_begin(pb->d.user, &call, &v->kernels[i])) &&
            *t)
            oklc_edit_after(&E->ed, k->body.begin + 1,
                            oklc_arena_printf(&c->arena, "\n    %s", t));
        if (pb->d.kernel_end && (t = pb->d.kernel_end(pb->d.user, &call, &v->kernels[i])) && *t)
            oklc_edit_before(&E->ed, k->body.end - 1, oklc_arena_printf(&c->arena, "    %s\n", t));
    }
    if (pb->d.file_begin)
        oklc_buf_puts(&E->head, pb->d.file_begin);
    if (!pb->base->translate(E))
        return false;
    if (pb->d.file_end)
        oklc_buf_puts(&E->tail, pb->d.file_end);
    return true;
}
