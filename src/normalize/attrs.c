/*
 * attrs.c - the OKL attributes: names, argument counts, argument shapes.
 *
 * Only the shape is checked here (how many arguments, which may be nested
 * attributes or key=value); what the values mean (axis 0-2, constant
 * sizes) is for the semantic checks that see the parsed C++. The table
 * below is entered into each context's registry on first use, where
 * plugins add theirs (plugin/plugin.c); lookups go through the registry.
 */
#include <string.h>

#include "normalize.h"

static const AttrSpec specs[] = {
    {"kernel", ATTR_KERNEL, 0, 0, false, NULL},
    {"outer", ATTR_OUTER, 0, 1, false, NULL},
    {"inner", ATTR_INNER, 0, 1, false, NULL},
    {"tile", ATTR_TILE, 1, 4, true, NULL},
    {"shared", ATTR_SHARED, 0, 0, false, NULL},
    {"exclusive", ATTR_EXCLUSIVE, 0, 0, false, NULL},
    {"barrier", ATTR_BARRIER, 0, 1, false, NULL},
    {"nobarrier", ATTR_NOBARRIER, 0, 0, false, NULL},
    {"atomic", ATTR_ATOMIC, 0, 0, false, NULL},
    {"restrict", ATTR_RESTRICT, 0, 0, false, NULL},
    {"dim", ATTR_DIM, 1, -1, false, NULL},
    {"dimOrder", ATTR_DIMORDER, 1, -1, false, NULL},
    {"max_inner_dims", ATTR_MAX_INNER_DIMS, 1, 3, false, NULL},
    {"simd_length", ATTR_SIMD_LENGTH, 1, 1, false, NULL},
    {"unroll", ATTR_UNROLL, 0, 1, false, NULL},
    {"globalPtr", ATTR_GLOBAL_PTR, 0, 0, false, NULL},
};

/* OpenCL's [[cl::...]] attribute qualifiers. Those with a meaning in OKL
 * are records like OKL's own (unroll_hint is OKL's @unroll); packed and
 * aligned are layouts the normalizer writes as GNU attributes; each
 * backend's translation is in docs/backends.md ("OpenCL attributes"). */
static const AttrSpec cl_specs[] = {
    {"unroll", ATTR_UNROLL, 0, 1, false, NULL},
    {"cl::reqd_work_group_size", ATTR_CL_REQD_WGS, 3, 3, false, NULL},
    {"cl::work_group_size_hint", ATTR_CL_WGS_HINT, 3, 3, false, NULL},
    {"cl::vec_type_hint", ATTR_CL_VEC_HINT, 1, 1, false, NULL},
    {"cl::ivdep", ATTR_CL_IVDEP, 0, 1, false, NULL},
    {"cl::packed", ATTR_CL_PACKED, 0, 0, false, NULL},
    {"cl::aligned", ATTR_CL_ALIGNED, 0, 1, false, NULL},
};

/* cl:: names with another spelling in cl_specs, and those without a
 * meaning on any backend (sub-groups and the sizes of constant or local
 * kernel arguments, which OKL kernels do not have). */
static const struct {
    const char *name, *as;
} cl_names[] = {
    {"unroll_hint", "unroll"},
    {"required_work_group_size", "cl::reqd_work_group_size"},
    {"required_num_sub_groups", NULL},
    {"max_size", NULL},
};

/* Legacy names of attributes, accepted with a warning (oklc_attr_legacy). */
static const struct {
    const char *name;
    AttrId      id;
} legacy_names[] = {
    {"global", ATTR_GLOBAL_PTR},
};

static bool same_name(const char *spec, const char *name, size_t len)
{
    return strlen(spec) == len && !memcmp(spec, name, len);
}

/* The built-in attributes enter the context's registry the way a plugin's
 * do, on first use. */
static void builtins(oklc_ctx *c)
{
    if (c->builtin_attrs)
        return;
    c->builtin_attrs = true;
    for (size_t i = 0; i < OKLC_COUNTOF(specs); i++)
        oklc_attr_add(c, &specs[i]);
}

static const AttrSpec *find(oklc_ctx *c, const char *name, size_t len)
{
    builtins(c);
    for (size_t i = 0; i < c->attr_specs.len; i++)
        if (same_name(c->attr_specs.data[i]->name, name, len))
            return c->attr_specs.data[i];
    return NULL;
}

bool oklc_attr_add(oklc_ctx *c, const AttrSpec *s)
{
    builtins(c);
    if (find(c, s->name, strlen(s->name)))
        return false;
    for (size_t i = 0; i < OKLC_COUNTOF(legacy_names); i++)
        if (!strcmp(legacy_names[i].name, s->name))
            return false;
    vec_push(&c->arena, &c->attr_specs, s);
    return true;
}

const AttrSpec *oklc_attr_lookup(oklc_ctx *c, const char *name, size_t len)
{
    const AttrSpec *s = find(c, name, len);
    if (s)
        return s;
    for (size_t i = 0; i < OKLC_COUNTOF(legacy_names); i++)
        if (same_name(legacy_names[i].name, name, len))
            return oklc_attr_lookup(c, oklc_attr_name(legacy_names[i].id),
                                    strlen(oklc_attr_name(legacy_names[i].id)));
    return NULL;
}

bool oklc_attr_legacy(const AttrSpec *s, const char *name, size_t len)
{
    return !same_name(s->name, name, len);
}

const char *oklc_attr_name(AttrId id)
{
    for (size_t i = 0; i < OKLC_COUNTOF(specs); i++)
        if (specs[i].id == id)
            return specs[i].name;
    for (size_t i = 0; i < OKLC_COUNTOF(cl_specs); i++)
        if (cl_specs[i].id == id)
            return cl_specs[i].name;
    return "?";
}

const char *oklc_attr_at(const char *name)
{
    return strncmp(name, "cl::", 4) ? "@" : "";
}

const AttrSpec *oklc_attr_cl(const char *name, size_t len, bool *unsupported)
{
    *unsupported = false;
    const char *full = NULL;
    for (size_t i = 0; i < OKLC_COUNTOF(cl_names); i++)
        if (same_name(cl_names[i].name, name, len)) {
            if (!cl_names[i].as) {
                *unsupported = true;
                return NULL;
            }
            full = cl_names[i].as;
        }
    for (size_t i = 0; i < OKLC_COUNTOF(cl_specs); i++) {
        const char *s = cl_specs[i].name;
        if (full ? !strcmp(s, full) : !strncmp(s, "cl::", 4) && same_name(s + 4, name, len))
            return &cl_specs[i];
    }
    return NULL;
}

/* Levenshtein distance, case-insensitive, capped for short names. */
static size_t distance(const char *a, size_t n, const char *b)
{
    size_t m = strlen(b);
    if (n > 31 || m > 31)
        return 99;
    size_t row[32];
    for (size_t j = 0; j <= m; j++)
        row[j] = j;
    for (size_t i = 1; i <= n; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t up = row[j];
            char x = a[i - 1] | 0x20, y = b[j - 1] | 0x20;
            size_t best = diag + (x != y);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[m];
}

const char *oklc_attr_suggest(oklc_ctx *c, const char *name, size_t len)
{
    const char *best = NULL;
    size_t bestd = len < 4 ? 1 : 2;   /* only near misses */
    builtins(c);
    for (size_t i = 0; i < c->attr_specs.len; i++) {
        size_t d = distance(name, len, c->attr_specs.data[i]->name);
        if (d <= bestd) {
            best = c->attr_specs.data[i]->name;
            bestd = d;
        }
    }
    return best;
}

static bool arg_error(oklc_ctx *c, const Token *at, const char *fmt, const char *name)
{
    Diag *d = oklc_diag_error(c, oklc_tok_user_loc(at), fmt, name);
    oklc_tok_note_expansion(c, d, at);
    return false;
}

/* @tile(size [, @outer|@inner [, @outer|@inner]] [, check=true|false]) */
static bool check_tile(oklc_ctx *c, const Attr *a)
{
    int nested = 0;
    bool seen_check = false;
    for (int i = 0; i < a->nargs; i++) {
        const AttrArg *g = &a->args[i];
        if (i == 0) {
            if (g->kind != ARG_EXPR)
                return arg_error(c, g->tok, "the first argument of '@%s' must be the tile size",
                                 a->name);
            continue;
        }
        if (g->kind == ARG_ATTR) {
            if (g->attr->id != ATTR_OUTER && g->attr->id != ATTR_INNER)
                return arg_error(c, g->tok, "'@%s' cannot be an argument of '@tile'; expected "
                                            "'@outer' or '@inner'",
                                 g->attr->name);
            if (seen_check || ++nested > 2)
                return arg_error(c, g->tok, nested > 2 ? "'@%s' takes at most two loop "
                                                         "attributes"
                                                       : "loop attributes of '@%s' come "
                                                         "before 'check='",
                                 a->name);
            continue;
        }
        if (g->kind == ARG_KEYVAL) {
            if (strcmp(g->key, "check"))
                return arg_error(c, g->tok, "unknown option '%s' of '@tile'; the only option "
                                            "is 'check'",
                                 g->key);
            if (seen_check)
                return arg_error(c, g->tok, "'check' is given twice in '@%s'", a->name);
            if (strcmp(g->text, "true") && strcmp(g->text, "false"))
                return arg_error(c, g->tok, "'check' of '@%s' must be 'true' or 'false'",
                                 a->name);
            seen_check = true;
            continue;
        }
        return arg_error(c, g->tok, "expected '@outer', '@inner' or 'check=' in '@%s'",
                         a->name);
    }
    return true;
}

bool oklc_attr_check_args(oklc_ctx *c, const Attr *a)
{
    bool unsupported;
    const AttrSpec *s = !strncmp(a->name, "cl::", 4)
                            ? oklc_attr_cl(a->name + 4, strlen(a->name + 4), &unsupported)
                            : oklc_attr_lookup(c, a->name, strlen(a->name));
    if (a->nargs < s->min_args) {
        Diag *d = oklc_diag_error(c, oklc_tok_user_loc(a->tok),
                                  "'%s%s' needs %s%d argument%s", oklc_attr_at(a->name),
                                  a->name,
                                  s->max_args == s->min_args ? "" : "at least ", s->min_args,
                                  s->min_args == 1 ? "" : "s");
        oklc_tok_note_expansion(c, d, a->tok);
        return false;
    }
    if (s->max_args >= 0 && a->nargs > s->max_args) {
        Diag *d;
        if (s->max_args == 0)
            d = oklc_diag_error(c, oklc_tok_user_loc(a->tok), "'%s%s' takes no arguments",
                                oklc_attr_at(a->name), a->name);
        else
            d = oklc_diag_error(c, oklc_tok_user_loc(a->args[s->max_args].tok),
                                "'%s%s' takes at most %d argument%s, but %d were given",
                                oklc_attr_at(a->name), a->name, s->max_args,
                                s->max_args == 1 ? "" : "s", a->nargs);
        oklc_tok_note_expansion(c, d, a->tok);
        return false;
    }
    if (s->args_are_attrs)
        return check_tile(c, a);
    for (int i = 0; i < a->nargs; i++) {
        const AttrArg *g = &a->args[i];
        if (g->kind == ARG_ATTR)
            return arg_error(c, g->tok, "'%s' does not take attributes as arguments",
                             oklc_arena_printf(&c->arena, "%s%s", oklc_attr_at(a->name), a->name));
        if (g->kind == ARG_KEYVAL)
            return arg_error(c, g->tok, "'%s' does not take options",
                             oklc_arena_printf(&c->arena, "%s%s", oklc_attr_at(a->name), a->name));
    }
    return true;
}
