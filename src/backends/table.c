/*
 * table.c - the list of built-in backends, and each context's registry of
 * them with the backends plugins add.
 *
 * Adding a backend: its file with its `Backend` entry, its line below (in
 * the order of the public ids), its id in include/oklc/oklc.h.
 */
#include <ctype.h>

#include "table.h"

extern const Backend oklc_serial_backend, oklc_openmp_backend, oklc_cuda_backend,
    oklc_hip_backend, oklc_opencl_backend, oklc_dpcpp_backend, oklc_metal_backend;

static const Backend *const builtins[] = {
    &oklc_serial_backend,
    &oklc_openmp_backend,
    &oklc_cuda_backend,
    &oklc_hip_backend,
    &oklc_opencl_backend,
    &oklc_dpcpp_backend,
    &oklc_metal_backend,
};

size_t oklc_backend_count(void)
{
    return OKLC_COUNTOF(builtins);
}

const Backend *oklc_backend_at(size_t i)
{
    return i < OKLC_COUNTOF(builtins) ? builtins[i] : NULL;
}

const Backend *oklc_backend_builtin(oklc_backend id)
{
    for (size_t i = 0; i < OKLC_COUNTOF(builtins); i++)
        if (builtins[i]->id == id)
            return builtins[i];
    return NULL;
}

static bool same_name(const char *a, const char *b)
{
    while (*a && tolower((unsigned char)*a) == tolower((unsigned char)*b))
        a++, b++;
    return !*a && !*b;
}

/* ---- the public names ------------------------------------------------------ */

bool oklc_backend_from_name(const char *name, oklc_backend *out)
{
    if (same_name("none", name)) {
        *out = OKLC_BACKEND_NONE;
        return true;
    }
    for (size_t i = 0; i < OKLC_COUNTOF(builtins); i++)
        if (same_name(builtins[i]->name, name)) {
            *out = builtins[i]->id;
            return true;
        }
    return false;
}

const char *oklc_backend_name(oklc_backend id)
{
    const Backend *be = oklc_backend_builtin(id);
    return be ? be->name : id == OKLC_BACKEND_NONE ? "none" : "?";
}

/* ---- a context's registry ---------------------------------------------------- */

/* The built-in backends enter the context's registry the way a plugin's
 * do, on first use. */
static void enter_builtins(oklc_ctx *c)
{
    if (c->builtin_backends)
        return;
    c->builtin_backends = true;
    for (size_t i = 0; i < OKLC_COUNTOF(builtins); i++)
        oklc_backend_add(c, builtins[i]);
}

bool oklc_backend_add(oklc_ctx *c, const Backend *be)
{
    if (oklc_backend_find(c, be->name))
        return false;
    vec_push(&c->arena, &c->backends, be);
    return true;
}

const Backend *oklc_backend_find(oklc_ctx *c, const char *name)
{
    enter_builtins(c);
    for (size_t i = 0; i < c->backends.len; i++)
        if (same_name(c->backends.data[i]->name, name))
            return c->backends.data[i];
    return NULL;
}

const Backend *oklc_backend_chosen(oklc_ctx *c)
{
    if (c->backend_name)
        return oklc_backend_find(c, c->backend_name);
    return oklc_backend_builtin(c->backend);
}
