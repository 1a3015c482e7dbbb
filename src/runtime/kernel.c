/*
 * kernel.c - kernels: build (source, key, cache entry, compile on a miss),
 * load from a cache entry, run with checked arguments.
 *
 * Every kernel is loaded from its cache entry, whether it was just built
 * or found there, or built by another process (oklc_kernel_build_only in
 * one MPI rank, oklc_kernel_load in the others): one path, always tested.
 *
 * A template kernel built by its bare name is transpiled (so checked) and
 * kept (template.c); each run deduces its instance, built here on the
 * first run like any named instance and loaded from its cache entry.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "rt.h"

enum { STALE_SECONDS = 3600, LOCAL_ARGS = 16 };

/* entry.json: what `oklc cache` shows of an entry (its kernel, device
 * kind, input file, the compile command or the device compiler's options). */
static oklc_status describe_entry(const Build *b, const char *tmp)
{
    cJSON *o = cJSON_CreateObject();
    char *source = oklc_rt_absolute(b->path);
    char *cmd = b->ncmd ? oklc_rt_command_line((const char *const *)b->cmd) : NULL;
    char *opts = b->nopts ? oklc_rt_command_line((const char *const *)b->opts) : NULL;
    if (o && source) {
        cJSON_AddStringToObject(o, "kernel", b->name);
        cJSON_AddStringToObject(o, "mode", b->dev->ops->name);
        cJSON_AddStringToObject(o, "source", source);
        cJSON_AddBoolToObject(o, "okl", b->props->okl);
        cJSON_AddStringToObject(o, "command", cmd ? cmd : "");
        cJSON_AddStringToObject(o, "device_options", opts ? opts : "");
        cJSON_AddStringToObject(o, "oklc", oklc_version());
    }
    char *text = o ? cJSON_Print(o) : NULL, *path = oklc_rt_path(tmp, "entry.json");
    oklc_status st = text && path && source && (!b->ncmd || cmd) && (!b->nopts || opts)
                         ? oklc_rt_write_file(path, text, strlen(text)) : oklc_rt_oom();
    cJSON_Delete(o);
    cJSON_free(text);
    oklc_free(source), oklc_free(cmd), oklc_free(opts), oklc_free(path);
    return st;
}

/* Writes the inputs into a temporary folder, compiles there, seals it (its
 * manifest, last) and renames it into the entry. A failed compile's folder
 * is kept for the user to read (cache.c; the message says where). */
static oklc_status compile_entry(const Build *b, const char *root, const char *key,
                                 const char *entry)
{
    const DeviceOps *ops = b->dev->ops;
    char *tmp = NULL, *src = NULL, *meta = NULL, *launcher = NULL;
    oklc_rt_cache_sweep(root, STALE_SECONDS);
    oklc_status st = oklc_rt_cache_tmp(root, key, &tmp);
    if (!st) {
        src = oklc_rt_path(tmp, ops->source_name);
        meta = oklc_rt_path(tmp, "metadata.json");
        launcher = oklc_rt_path(tmp, "launcher.cpp");
        st = src && meta && launcher ? OKLC_OK : oklc_rt_oom();
    }
    if (!st)
        st = oklc_rt_write_file(src, b->source, b->source_len);
    if (!st)
        st = oklc_rt_write_file(meta, b->metadata, strlen(b->metadata));
    if (!st && b->launcher)
        st = oklc_rt_write_file(launcher, b->launcher, strlen(b->launcher));
    if (!st)
        st = describe_entry(b, tmp);
    if (!st)
        st = ops->compile(b->dev, b, tmp);
    st = oklc_rt_cache_commit(tmp, entry, st);
    oklc_free(tmp);
    oklc_free(src);
    oklc_free(meta);
    oklc_free(launcher);
    return st;
}

/* A damaged entry is built again; when that fails too (a read-only
 * cache), the message says both. */
static oklc_status rebuild(const Build *b, const char *root, const char *key, const char *dir)
{
    char *damage = oklc_rt_strdup(oklc_last_error());
    if (damage && oklc_rt_verbose())
        fprintf(stderr, "oklc: %s; building it again\n", damage);
    oklc_status st = compile_entry(b, root, key, dir);
    if (st == OKLC_ERR_IO && damage)
        st = oklc_rt_fail(st, "%s, and cannot be built again: %s", damage, oklc_last_error());
    oklc_free(damage);
    return st;
}

/* The entry of a build: found in the cache and whole, or compiled into it
 * (missing, damaged, or made by an older oklc). */
static oklc_status find_or_compile(const Build *b, char **entry)
{
    const DeviceOps *ops = b->dev->ops;
    char key[33], *root = NULL, *dir = NULL;
    bool found = false;
    oklc_status st = oklc_rt_cache_root(&root);
    if (!st) {
        oklc_rt_cache_key(b, key);
        dir = oklc_rt_path(root, key);
        st = dir ? oklc_rt_cache_verify(dir, &found) : oklc_rt_oom();
    }
    if (st == OKLC_ERR_LOAD)
        st = found ? rebuild(b, root, key, dir) : compile_entry(b, root, key, dir);
    else if (!st)
        utimensat(AT_FDCWD, dir, NULL, 0);    /* its time: when last used (oklc cache prune) */
    if (!st && oklc_rt_verbose())
        fprintf(stderr, "oklc: source of '%s': %s/%s\n", b->name, dir, ops->source_name);
    if (!st) {
        *entry = dir;
        dir = NULL;
    }
    oklc_free(root);
    oklc_free(dir);
    return st;
}

/* Before compiling, that the kernel exists (the metadata lists every one). */
static oklc_status check_name(const Build *b)
{
    char *symbol;
    Param *params;
    int n;
    oklc_status st = oklc_rt_find_kernel(b->metadata, b->path, b->name, &symbol, &params, &n);
    if (!st) {
        oklc_free(symbol);
        oklc_rt_params_free(params, n);
    }
    return st;
}

/* A template kernel by its bare name: kept in *tmpl to be built per
 * instance (NULL: oklc_kernel_build_only, which builds instances only). */
static oklc_status template_kernel(const Build *b, const char *text, Template **tmpl,
                                   bool *is_template)
{
    Template *t = NULL;
    oklc_status st = strchr(b->name, '<') || !b->props->okl
                         ? OKLC_OK
                         : oklc_rt_template_new(b->metadata, b->path, b->name, b->path, text,
                                                b->props, &t);
    *is_template = t != NULL;
    if (t && !tmpl) {
        oklc_rt_template_free(t, oklc_kernel_free);
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "'%s' of '%s' is a template kernel: build "
                            "an instance of it (\"%s<...>\"), or build it with "
                            "oklc_kernel_build and run it", b->name, b->path, b->name);
    }
    if (tmpl)
        *tmpl = t;
    return st;
}

static oklc_status build(oklc_device *d, const char *path, const char *text, const char *name,
                         const oklc_props *props, char **entry, Template **tmpl)
{
    if (!d || !name || !*name || (!path && !text))
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "building a kernel: NULL %s",
                            !d ? "device" : !name || !*name ? "kernel name" : "path");
    oklc_props defaults = {.okl = true};
    Build b = {.dev = d, .props = props ? props : &defaults, .path = path ? path : "<string>",
               .name = name};
    bool is_template = false;
    oklc_status st = oklc_rt_source(&b, text);
    if (!st)
        st = template_kernel(&b, text, tmpl, &is_template);
    if (!st && is_template) {    /* compiled per instance, when a run says which */
        oklc_rt_build_free(&b);
        return OKLC_OK;
    }
    if (!st)
        st = check_name(&b);
    if (!st)
        st = d->ops->command(d, &b);
    if (!st)
        st = find_or_compile(&b, entry);
    oklc_rt_build_free(&b);
    return st;
}

oklc_status oklc_kernel_build(oklc_device *d, const char *path, const char *name,
                              const oklc_props *props, oklc_kernel **out)
{
    return oklc_kernel_build_string(d, path, NULL, name, props, out);
}

oklc_status oklc_kernel_build_string(oklc_device *d, const char *path, const char *source,
                                     const char *name, const oklc_props *props,
                                     oklc_kernel **out)
{
    oklc_rt_dl_enter();
    char *entry = NULL;
    Template *tmpl = NULL;
    if (out)
        *out = NULL;
    oklc_status st = out ? build(d, path, source, name, props, &entry, &tmpl)
                         : oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_kernel_build: NULL out");
    if (!st && tmpl) {
        oklc_kernel *k = oklc_malloc(sizeof *k);
        if (k)
            *k = (oklc_kernel){.dev = d, .name = oklc_rt_strdup(name), .tmpl = tmpl,
                               .nparams = oklc_rt_template_nargs(tmpl)};
        if (!k || !k->name) {
            oklc_free(k);
            oklc_rt_template_free(tmpl, oklc_kernel_free);
            return oklc_rt_oom();
        }
        *out = k;
        return OKLC_OK;
    }
    if (!st)
        st = oklc_kernel_load(d, entry, name, out);
    oklc_free(entry);
    return st;
}

oklc_status oklc_kernel_build_only(oklc_device *d, const char *path, const char *name,
                                   const oklc_props *props, char **binary)
{
    oklc_rt_dl_enter();
    char *entry = NULL;
    if (!binary)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_kernel_build_only: NULL binary");
    *binary = NULL;
    oklc_status st = build(d, path, NULL, name, props, &entry, NULL);
    if (st)
        return st;
    *binary = malloc(strlen(entry) + 1);    /* the caller frees it with free() */
    if (*binary)
        strcpy(*binary, entry);
    oklc_free(entry);
    return *binary ? OKLC_OK : oklc_rt_oom();
}

/* An entry's binary is for the device it was built for. */
static oklc_status check_backend(const oklc_device *d, const char *metadata, const char *dir)
{
    char *backend = NULL;
    oklc_status st = oklc_rt_metadata_backend(metadata, &backend);
    if (!st && (!backend || strcmp(backend, d->ops->name)))
        st = oklc_rt_fail(OKLC_ERR_ARGUMENT, "'%s' was built for the %s device, not for %s",
                          dir, backend ? backend : "(unknown)", d->ops->name);
    oklc_free(backend);
    return st;
}

static oklc_status load(oklc_kernel *k, const char *dir, const char *metadata)
{
    char *symbol = NULL;
    oklc_status st = oklc_rt_find_kernel(metadata, dir, k->name, &symbol, &k->params,
                                         &k->nparams);
    if (!st)
        st = check_backend(k->dev, metadata, dir);
    if (!st)
        st = k->dev->ops->load(k, dir, metadata, symbol);
    oklc_free(symbol);
    return st;
}

/* A cache entry is checked against its manifest before anything in it is
 * read: a truncated binary would kill the process inside dlopen (SIGBUS).
 * A folder without one (made by hand) is loaded as it is. */
static oklc_status check_entry(const char *dir)
{
    bool found;
    oklc_status st = oklc_rt_cache_sealed(dir) ? oklc_rt_cache_verify(dir, &found) : OKLC_OK;
    if (st == OKLC_ERR_LOAD)
        st = oklc_rt_fail(st, "oklc_kernel_load: %s (oklc_kernel_build builds it again)",
                          oklc_last_error());
    return st;
}

oklc_status oklc_kernel_load(oklc_device *d, const char *binary, const char *name,
                             oklc_kernel **out)
{
    oklc_rt_dl_enter();
    if (!d || !binary || !name || !out)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_kernel_load: NULL %s",
                            !d ? "device" : !binary ? "binary" : !name ? "name" : "out");
    *out = NULL;
    char *meta_path = oklc_rt_path(binary, "metadata.json"), *metadata = NULL;
    oklc_kernel *k = oklc_malloc(sizeof *k);
    oklc_status st = meta_path && k ? OKLC_OK : oklc_rt_oom();
    if (k)
        *k = (oklc_kernel){.dev = d, .name = oklc_rt_strdup(name)};
    if (!st && !k->name)
        st = oklc_rt_oom();
    if (!st)
        st = check_entry(binary);
    if (!st)
        st = oklc_rt_read_file(meta_path, &metadata, NULL);
    if (!st)
        st = load(k, binary, metadata);
    if (st)
        oklc_kernel_free(k);
    else
        *out = k;
    oklc_free(meta_path);
    oklc_free(metadata);
    return st;
}

void oklc_kernel_free(oklc_kernel *k)
{
    oklc_rt_dl_enter();
    if (!k)
        return;
    if (k->tmpl)
        oklc_rt_template_free(k->tmpl, oklc_kernel_free);    /* its instances with it */
    else
        k->dev->ops->unload(k);
    oklc_rt_params_free(k->params, k->params ? k->nparams : 0);    /* a template has none */
    oklc_free(k->name);
    oklc_free(k);
}

int oklc_kernel_arg_count(const oklc_kernel *k)
{
    return k ? k->nparams : -1;
}

/* The instance of template kernel k that the arguments deduce: built on
 * its first run (through the cache: another process may have compiled
 * it), then kept. One build at a time per kernel. */
static oklc_status instance(oklc_kernel *k, int nargs, const oklc_arg *args,
                            oklc_kernel **inst)
{
    Template *t = k->tmpl;
    char *name = NULL, *entry = NULL;
    oklc_status st = oklc_rt_template_deduce(t, k->name, nargs, args, &name);
    if (st)
        return st;
    oklc_rt_template_lock(t);
    *inst = oklc_rt_template_find(t, name);
    if (!*inst) {
        st = build(k->dev, oklc_rt_template_path(t), oklc_rt_template_text(t), name,
                   oklc_rt_template_props(t), &entry, NULL);
        if (!st)
            st = oklc_kernel_load(k->dev, entry, name, inst);
        if (!st && (st = oklc_rt_template_add(t, name, *inst)))
            oklc_kernel_free(*inst);
    }
    oklc_rt_template_unlock(t);
    oklc_free(entry);
    oklc_free(name);
    return st;
}

oklc_status oklc_kernel_run(oklc_kernel *k, int nargs, const oklc_arg *args)
{
    oklc_rt_dl_enter();
    if (!k || nargs < 0 || (nargs && !args))
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_kernel_run: %s",
                            !k ? "the kernel is NULL" : "a bad argument list");
    if (k->tmpl) {
        oklc_kernel *inst = NULL;
        oklc_status st = instance(k, nargs, args, &inst);
        return st ? st : oklc_kernel_run(inst, nargs, args);
    }
    Slot local_slots[LOCAL_ARGS];
    void *local_ptrs[LOCAL_ARGS];
    bool heap = nargs > LOCAL_ARGS;
    Slot *slots = heap ? oklc_malloc((size_t)nargs * sizeof *slots) : local_slots;
    void **ptrs = heap ? oklc_malloc((size_t)nargs * sizeof *ptrs) : local_ptrs;
    oklc_status st = slots && ptrs ? oklc_rt_pack(k, nargs, args, slots, ptrs) : oklc_rt_oom();
    if (!st)
        st = k->dev->ops->run(k, nargs, args, ptrs);
    if (heap) {
        oklc_free(slots);
        oklc_free(ptrs);
    }
    return st;
}
