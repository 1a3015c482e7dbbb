/*
 * source.c - a kernel's input made into what the device compiles: OKL is
 * transpiled in process for the device's backend (the output, its JSON
 * metadata, the hash of the preprocessed input); native source is taken as
 * it is, with a small metadata of our own ("native": true, no kernels).
 *
 * Native source is also run through oklc's preprocessor, only for the
 * cache key: with its "..." includes inlined, editing a header it includes
 * changes the key, as it does for OKL.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* Appends a copy of `option` and `value` joined ("-I" "/usr/include") to a
 * NULL-terminated list: the compile command, or the device's options. */
static oklc_status list_add(char ***list, size_t *n, const char *option, const char *value)
{
    char *s = oklc_rt_format("%s%s", option, value);
    char **bigger = s ? oklc_realloc(*list, (*n + 2) * sizeof *bigger) : NULL;
    if (!bigger) {
        oklc_free(s);
        return oklc_rt_oom();
    }
    *list = bigger;
    bigger[(*n)++] = s;
    bigger[*n] = NULL;
    return OKLC_OK;
}

oklc_status oklc_rt_cmd_add(Build *b, const char *arg)
{
    return list_add(&b->cmd, &b->ncmd, arg, "");
}

oklc_status oklc_rt_cmd_add_joined(Build *b, const char *option, const char *value)
{
    return list_add(&b->cmd, &b->ncmd, option, value);
}

oklc_status oklc_rt_opt_add(Build *b, const char *opt)
{
    return list_add(&b->opts, &b->nopts, opt, "");
}

oklc_status oklc_rt_opt_add_joined(Build *b, const char *option, const char *value)
{
    return list_add(&b->opts, &b->nopts, option, value);
}

void oklc_rt_build_free(Build *b)
{
    for (size_t i = 0; i < b->ncmd; i++)
        oklc_free(b->cmd[i]);
    oklc_free(b->cmd);
    oklc_free(b->source_dir);
    oklc_free(b->source);
    oklc_free(b->metadata);
    oklc_free(b->input_hash);
    oklc_free(b->preprocessed);
    oklc_free(b->launcher);
    for (size_t i = 0; i < b->nopts; i++)
        oklc_free(b->opts[i]);
    oklc_free(b->opts);
    oklc_free(b->device_id);
}

/* A context for the device's backend with the properties, in their order,
 * and the cache's folder of precompiled preludes (none with OKLC_PCH=0,
 * or if the cache has no folder: the build says why later). */
static oklc_ctx *context(const Build *b)
{
    oklc_ctx *c = oklc_ctx_new();
    if (!c)
        return NULL;
    oklc_set_backend(c, b->dev->ops->backend);
    oklc_set_cpu_rewrites(c, !b->props->no_cpu_rewrites);
    char *root = NULL, *pch = NULL;
    const char *off = getenv("OKLC_PCH");
    if (!(off && !strcmp(off, "0")) && oklc_rt_cache_root(&root) == OKLC_OK &&
        (pch = oklc_rt_path(root, "pch")))
        oklc_set_pch_dir(c, pch);
    oklc_free(root);
    oklc_free(pch);
    for (size_t i = 0; i < b->props->ncmds; i++) {
        const PropCmd *p = &b->props->cmds[i];
        if (p->kind == PROP_DEFINE)
            oklc_define(c, p->text);
        else if (p->kind == PROP_INCLUDE_PATH)
            oklc_include_path(c, p->text);
        else if (p->kind == PROP_INCLUDE_FILE)
            oklc_include_file(c, p->text);
        else if (p->kind == PROP_INTRINSICS)
            oklc_load_intrinsics(c, p->text);    /* its errors: the transpile's */
        else if (p->kind == PROP_PLUGIN)
            oklc_load_plugin(c, p->text);        /* the same */
    }
    return c;
}

/* The diagnostics as text, through a memory stream. */
static oklc_status transpile_failed(const Build *b, oklc_ctx *c)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f) {
        oklc_diag_print(c, f, OKLC_DIAG_TEXT);
        fclose(f);
    }
    oklc_status st = oklc_rt_fail(OKLC_ERR_TRANSPILE,
                                  "cannot transpile '%s' for the %s device:\n%s", b->path,
                                  b->dev->ops->name, text ? text : "");
    free(text);    /* open_memstream's memory comes from malloc */
    return st;
}

static char *copy(const char *s)
{
    return s ? oklc_rt_strdup(s) : NULL;
}

static oklc_status transpile(Build *b, const char *text, size_t len)
{
    oklc_ctx *c = context(b);
    if (!c)
        return oklc_rt_oom();
    if (strchr(b->name, '<'))
        oklc_add_instance(c, b->name);
    oklc_status st = OKLC_OK;
    const char *out = NULL, *meta = NULL, *hash = NULL, *launcher = NULL;
    bool gpu = b->dev->ops->launch != NULL;    /* GPU-like: a launcher too */
    if (!oklc_transpile_buffer(c, b->path, text, len, 0))
        st = transpile_failed(b, c);
    else if (!(out = oklc_output(c, &b->source_len)) || !(meta = oklc_metadata(c, NULL)) ||
             (gpu && !(launcher = oklc_launcher(c, NULL))))
        st = oklc_rt_fail(OKLC_ERR_TRANSPILE, "the transpiler gave no %s for '%s'",
                          !out ? "output" : !meta ? "metadata" : "launcher", b->path);
    if (!st) {
        hash = oklc_input_hash(c);
        b->source = copy(out);
        b->metadata = copy(meta);
        b->input_hash = copy(hash);
        b->launcher = copy(launcher);
        if (!b->source || !b->metadata || (hash && !b->input_hash) ||
            (launcher && !b->launcher))
            st = oklc_rt_oom();
    }
    oklc_ctx_free(c);
    return st;
}

/* The folder of b->path, absolute: "..." includes of native source. */
static char *folder(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return oklc_rt_absolute(".");
    int n = slash == path ? 1 : (int)(slash - path);    /* "/k.cpp": "/" */
    char *dir = oklc_rt_format("%.*s", n, path);
    char *abs = dir ? oklc_rt_absolute(dir) : NULL;
    oklc_free(dir);
    return abs;
}

/* Whether the context ran out of memory: it says so with one diagnostic. */
static bool ran_out(oklc_ctx *c)
{
    oklc_diag_info d;
    for (size_t i = 0; oklc_diag_get(c, i, &d); i++)
        if (d.level == OKLC_ERROR && !d.file && !strcmp(d.message, "out of memory"))
            return true;
    return false;
}

/* Best effort: when oklc's preprocessor cannot read the source (an include
 * only the compiler's own flags find), the key hashes the text alone. Not
 * when memory runs out: that key would leave the includes out, an entry
 * that a later header edit would not replace. */
static oklc_status preprocess(Build *b, const char *text, size_t len)
{
    oklc_ctx *c = context(b);
    if (!c)
        return oklc_rt_oom();
    bool ok = oklc_preprocess_buffer(c, b->path, text, len);
    if (ok)
        b->preprocessed = copy(oklc_output(c, NULL));
    bool oom = ok ? !b->preprocessed : ran_out(c);
    oklc_ctx_free(c);
    return oom ? oklc_rt_oom() : OKLC_OK;
}

/* Does `name`, an identifier, occur in text as a whole word? */
static bool mentions(const char *text, const char *name)
{
    size_t n = strlen(name);
    if (!n || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789") != n)
        return false;
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name))
        if ((p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
            !(isalnum((unsigned char)p[n]) || p[n] == '_'))
            return true;
    return false;
}

/* Native CPU source: the compiler says how the kernel takes its arguments,
 * in _oklc_arity_NAME (cpu.c): -1 for oklc's void NAME(void *const *args),
 * else the parameter count of OCCA's form, void NAME(const int &n, float
 * *x, ...). Only where the source names the kernel (else the build's
 * "no kernel" is the message). */
static const char arity_probe[] =
    "\n// oklc: how '%s' takes its arguments (oklc's form or OCCA's)\n"
    "namespace {\n"
    "template <class R, class... A> constexpr int _oklc_arity(R (*)(A...))\n"
    "{ return sizeof...(A); }\n"
    "constexpr int _oklc_arity(void (*)(void *const *)) { return -1; }\n"
    "constexpr int _oklc_arity(void (*)(void **)) { return -1; }\n"
    "}\n"
    "extern \"C\" const int _oklc_arity_%s = _oklc_arity(&%s);\n";

static oklc_status native(Build *b, const char *text, size_t len)
{
    b->metadata = oklc_rt_format("{\"oklc\": \"%s\", \"backend\": \"%s\", \"native\": true, "
                                 "\"kernels\": []}\n", oklc_version(), b->dev->ops->name);
    b->source_dir = folder(b->path);
    oklc_status st = b->metadata && b->source_dir ? preprocess(b, text, len) : oklc_rt_oom();
    if (st)
        return st;
    /* the name as the compiler sees it: a macro's expansion too */
    bool cpu = b->dev->ops->backend == OKLC_BACKEND_SERIAL ||
               b->dev->ops->backend == OKLC_BACKEND_OPENMP;
    bool named = cpu && (mentions(text, b->name) ||
                         (b->preprocessed && mentions(b->preprocessed, b->name)));
    char *probe = named ? oklc_rt_format(arity_probe, b->name, b->name, b->name) : NULL;
    b->source = named && !probe ? NULL : oklc_rt_format("%s%s", text, probe ? probe : "");
    oklc_free(probe);
    b->source_len = b->source ? strlen(b->source) : 0;
    return b->source ? OKLC_OK : oklc_rt_oom();
}

oklc_status oklc_rt_source(Build *b, const char *text)
{
    char *file = NULL;
    size_t len = text ? strlen(text) : 0;
    if (!text) {
        oklc_status st = oklc_rt_read_file(b->path, &file, &len);
        if (st)
            return st;
        text = file;
    }
    oklc_status st = b->props->okl ? transpile(b, text, len) : native(b, text, len);
    oklc_free(file);
    return st;
}
