/*
 * props.c - kernel properties: the defines and includes given to the
 * transpiler (or, for native source, to the compiler), in the order given,
 * and the compiler with its flags.
 */
#include <string.h>

#include "rt.h"

oklc_props *oklc_props_new(void)
{
    oklc_props *p = oklc_malloc(sizeof *p);
    if (!p) {
        oklc_rt_oom();
        return NULL;
    }
    memset(p, 0, sizeof *p);
    p->okl = true;
    return p;
}

void oklc_props_free(oklc_props *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->ncmds; i++)
        oklc_free(p->cmds[i].text);
    oklc_free(p->cmds);
    for (size_t i = 0; i < p->ntargs; i++) {
        oklc_free(p->targs[i].name);
        oklc_free(p->targs[i].value);
    }
    oklc_free(p->targs);
    oklc_free(p->compiler);
    oklc_free(p->flags);
    oklc_free(p);
}

static oklc_status add(oklc_props *p, PropKind kind, const char *text, const char *what)
{
    if (!p || !text || !*text)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "%s: %s", what,
                            p ? "an empty or NULL text" : "props is NULL");
    if (p->ncmds == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 8;
        PropCmd *bigger = oklc_realloc(p->cmds, cap * sizeof *bigger);
        if (!bigger)
            return oklc_rt_oom();
        p->cmds = bigger;
        p->cap = cap;
    }
    char *copy = oklc_rt_strdup(text);
    if (!copy)
        return oklc_rt_oom();
    p->cmds[p->ncmds++] = (PropCmd){kind, copy};
    return OKLC_OK;
}

oklc_status oklc_props_define(oklc_props *p, const char *definition)
{
    return add(p, PROP_DEFINE, definition, "oklc_props_define");
}

oklc_status oklc_props_include_path(oklc_props *p, const char *dir)
{
    return add(p, PROP_INCLUDE_PATH, dir, "oklc_props_include_path");
}

oklc_status oklc_props_include_file(oklc_props *p, const char *path)
{
    return add(p, PROP_INCLUDE_FILE, path, "oklc_props_include_file");
}

oklc_status oklc_props_intrinsics(oklc_props *p, const char *path)
{
    return add(p, PROP_INTRINSICS, path, "oklc_props_intrinsics");
}

oklc_status oklc_props_plugin(oklc_props *p, const char *path)
{
    return add(p, PROP_PLUGIN, path, "oklc_props_plugin");
}

static oklc_status set(oklc_props *p, char **field, const char *text, const char *what)
{
    if (!p)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "%s: props is NULL", what);
    char *copy = NULL;
    if (text && !(copy = oklc_rt_strdup(text)))
        return oklc_rt_oom();
    oklc_free(*field);
    *field = copy;
    return OKLC_OK;
}

/* NULL restores the default. */
oklc_status oklc_props_compiler(oklc_props *p, const char *compiler)
{
    return set(p, p ? &p->compiler : NULL, compiler, "oklc_props_compiler");
}

oklc_status oklc_props_compiler_flags(oklc_props *p, const char *flags)
{
    return set(p, p ? &p->flags : NULL, flags, "oklc_props_compiler_flags");
}

oklc_status oklc_props_okl(oklc_props *p, bool enabled)
{
    if (!p)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_props_okl: props is NULL");
    p->okl = enabled;
    return OKLC_OK;
}

oklc_status oklc_props_cpu_rewrites(oklc_props *p, bool enabled)
{
    if (!p)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_props_cpu_rewrites: props is NULL");
    p->no_cpu_rewrites = !enabled;
    return OKLC_OK;
}

oklc_status oklc_props_template_arg(oklc_props *p, const char *name, const char *value)
{
    if (!p || !name || !*name || !value || !*value)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_props_template_arg: %s",
                            !p ? "props is NULL" : "an empty or NULL name or value");
    char *v = oklc_rt_strdup(value);
    if (!v)
        return oklc_rt_oom();
    for (size_t i = 0; i < p->ntargs; i++) {
        if (!strcmp(p->targs[i].name, name)) {    /* given again: the new value */
            oklc_free(p->targs[i].value);
            p->targs[i].value = v;
            return OKLC_OK;
        }
    }
    char *n = oklc_rt_strdup(name);
    PropTarg *bigger = n ? oklc_realloc(p->targs, (p->ntargs + 1) * sizeof *bigger) : NULL;
    if (!bigger) {
        oklc_free(n);
        oklc_free(v);
        return oklc_rt_oom();
    }
    p->targs = bigger;
    p->targs[p->ntargs++] = (PropTarg){n, v};
    return OKLC_OK;
}

oklc_props *oklc_rt_props_copy(const oklc_props *p)
{
    oklc_props *c = oklc_props_new();
    bool ok = c && (!p->compiler || !set(c, &c->compiler, p->compiler, "")) &&
              (!p->flags || !set(c, &c->flags, p->flags, ""));
    for (size_t i = 0; ok && i < p->ncmds; i++)
        ok = !add(c, p->cmds[i].kind, p->cmds[i].text, "");
    for (size_t i = 0; ok && i < p->ntargs; i++)
        ok = !oklc_props_template_arg(c, p->targs[i].name, p->targs[i].value);
    if (!ok) {
        oklc_props_free(c);
        return NULL;
    }
    c->okl = p->okl;
    c->no_cpu_rewrites = p->no_cpu_rewrites;
    return c;
}
