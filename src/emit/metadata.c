/*
 * metadata.c - the JSON the runtime reads: for each kernel its entry
 * symbol, the device-level functions it became and its arguments; for each
 * template kernel its template parameters and which argument deduces
 * which (the runtime instantiates templates from the arguments of a run).
 * The format is described in docs/metadata.md.
 */
#include <ctype.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "emit.h"

/* ---- template arguments -------------------------------------------------- */

/* Splits "a, B<c, d>, (e, f)" at its top-level commas. */
static size_t split_list(Arena *a, const char *s, const char ***out)
{
    VEC(const char *) parts = {0};
    int depth = 0;
    const char *start = s;
    for (const char *p = s;; p++) {
        if (*p == '<' || *p == '(' || *p == '[' || *p == '{')
            depth++;
        else if ((*p == '>' || *p == ')' || *p == ']' || *p == '}') && depth > 0)
            depth--;
        if (*p == '\0' || (*p == ',' && depth == 0)) {
            const char *b = start, *e = p;
            while (b < e && isspace((unsigned char)*b))
                b++;
            while (e > b && isspace((unsigned char)e[-1]))
                e--;
            const char *part = oklc_arena_strndup(a, b, (size_t)(e - b));
            vec_push(a, &parts, part);
            if (!*p)
                break;
            start = p + 1;
        }
    }
    *out = parts.data;
    return parts.len;
}

static bool ident_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_';
}

/* The name a template parameter declares: the last identifier before any
 * default ("typename T = float" -> T). */
static const char *param_name(Arena *a, const char *decl)
{
    const char *end = strchr(decl, '=');
    if (!end)
        end = decl + strlen(decl);
    while (end > decl && !ident_char(end[-1]))
        end--;
    const char *b = end;
    while (b > decl && ident_char(b[-1]))
        b--;
    return oklc_arena_strndup(a, b, (size_t)(end - b));
}

const char *oklc_template_param_names(oklc_ctx *c, const Kernel *k)
{
    const char **params;
    size_t np = k->template_params ? split_list(&c->arena, k->template_params, &params) : 0;
    Buf b;
    oklc_buf_init(&b, &c->arena);
    oklc_buf_puts(&b, "");
    for (size_t i = 0; i < np; i++) {
        const char *eq = strchr(params[i], '=');
        const char *dots = strstr(params[i], "...");
        oklc_buf_printf(&b, "%s%s%s", i ? ", " : "", param_name(&c->arena, params[i]),
                        dots && (!eq || dots < eq) ? "..." : "");
    }
    return b.data;
}

size_t oklc_template_type_params(oklc_ctx *c, const Kernel *k, const char ***out)
{
    const char **params;
    size_t np = k->template_params ? split_list(&c->arena, k->template_params, &params) : 0, n = 0;
    const char **names = oklc_arena_alloc(&c->arena, (np + 1) * sizeof *names);
    for (size_t i = 0; i < np; i++)
        if ((!strncmp(params[i], "class", 5) || !strncmp(params[i], "typename", 8)) &&
            !strstr(params[i], "..."))
            names[n++] = param_name(&c->arena, params[i]);
    *out = names;
    return n;
}

const char *oklc_subst_targs(oklc_ctx *c, const Kernel *k, const char *type,
                             const char *const *targs, size_t ntargs)
{
    if (!k->template_params || !ntargs)
        return type;
    const char **params;
    size_t np = split_list(&c->arena, k->template_params, &params);
    Buf b;
    oklc_buf_init(&b, &c->arena);
    for (const char *p = type; *p;) {
        if (!ident_char(*p) || (p > type && ident_char(p[-1]))) {
            oklc_buf_putc(&b, *p++);
            continue;
        }
        const char *e = p;
        while (ident_char(*e))
            e++;
        const char *with = NULL;
        for (size_t i = 0; i < np && i < ntargs && !with; i++) {
            const char *name = param_name(&c->arena, params[i]);
            if (strlen(name) == (size_t)(e - p) && !memcmp(name, p, (size_t)(e - p)))
                with = targs[i];
        }
        if (with)
            oklc_buf_puts(&b, with);
        else
            oklc_buf_putn(&b, p, (size_t)(e - p));
        p = e;
    }
    return b.data ? b.data : "";
}

/* ---- argument kinds ------------------------------------------------------ */

/* "const unsigned int" -> "unsigned int" */
static const char *unqualified(Arena *a, const char *type)
{
    Buf b;
    oklc_buf_init(&b, a);
    for (const char *p = type; *p;) {
        while (*p == ' ')
            p++;
        const char *e = p;
        while (*e && *e != ' ')
            e++;
        if (e > p && !(e - p == 5 && !memcmp(p, "const", 5)) &&
            !(e - p == 8 && !memcmp(p, "volatile", 8))) {
            if (b.len)
                oklc_buf_putc(&b, ' ');
            oklc_buf_putn(&b, p, (size_t)(e - p));
        }
        p = e;
    }
    return b.data ? b.data : "";
}

typedef struct Scalar {
    const char *name;
    const char *kind;
    int         size;
} Scalar;

/* Scalars by name, for types a template argument gives. */
static const Scalar scalars[] = {
    {"int", "int", 4}, {"signed", "int", 4}, {"signed int", "int", 4}, {"unsigned", "int", 4},
    {"unsigned int", "int", 4}, {"uint", "int", 4}, {"int32_t", "int", 4}, {"uint32_t", "int", 4},
    {"long", "int", 8}, {"long int", "int", 8}, {"unsigned long", "int", 8},
    {"unsigned long int", "int", 8}, {"long long", "int", 8}, {"long long int", "int", 8},
    {"unsigned long long", "int", 8}, {"ulong", "int", 8}, {"int64_t", "int", 8},
    {"uint64_t", "int", 8}, {"size_t", "int", 8}, {"ptrdiff_t", "int", 8},
    {"float", "float", 4}, {"double", "float", 8}, {"char", "int", 1},
    {"signed char", "int", 1}, {"unsigned char", "int", 1}, {"uchar", "int", 1},
    {"bool", "int", 1}, {"short", "int", 2}, {"unsigned short", "int", 2},
    {"ushort", "int", 2}, {"int8_t", "int", 1}, {"uint8_t", "int", 1},
    {"int16_t", "int", 2}, {"uint16_t", "int", 2}, {"half", "float", 2}, {"__half", "float", 2},
};

/* How the runtime passes an argument: memory (a pointer), int or float (a
 * scalar of `size` bytes), or struct (anything else, by value: a struct,
 * a vector type). */
static const char *arg_kind(Arena *a, const Var *v, const char *type, bool substituted,
                            int64_t *size)
{
    *size = v->size;
    if (v->type.pointer || v->type.array) {
        *size = (int64_t)sizeof(void *);
        return "memory";
    }
    if (substituted) {
        const char *u = unqualified(a, type);
        size_t n = strlen(u);
        while (n && (u[n - 1] == '&' || u[n - 1] == ' '))
            n--;
        if (n && u[n - 1] == '*') {
            *size = (int64_t)sizeof(void *);
            return "memory";
        }
        for (size_t i = 0; i < OKLC_COUNTOF(scalars); i++)
            if (strlen(scalars[i].name) == n && !memcmp(scalars[i].name, u, n)) {
                *size = scalars[i].size;
                return scalars[i].kind;
            }
        return "struct";
    }
    if (v->is_int && v->size > 0 && v->size <= 8)
        return "int";
    if (v->is_float && (v->size == 2 || v->size == 4 || v->size == 8))
        return "float";
    return "struct";
}

bool oklc_instances_name(const KernelOut *ks, size_t n, const char *type)
{
    for (size_t i = 0; i < n; i++)
        for (size_t t = 0; t < ks[i].ntargs; t++)
            if (oklc_names(ks[i].targs[t], type))
                return true;
    return false;
}

bool oklc_uses_half(const Model *m, const KernelOut *ks, size_t n)
{
    return m->uses_half || oklc_instances_name(ks, n, "half");
}

/* ---- the document ------------------------------------------------------- */

typedef struct ArgInfo {
    const char *name, *type, *element, *kind;
    bool        pointer, is_const, restrict_;
    int64_t     size;
} ArgInfo;

/* Everything the arena provides comes first, so that running out of
 * memory never jumps over cJSON's objects. */
static ArgInfo arg_info(oklc_ctx *c, const KernelOut *ko, const Var *v)
{
    const Kernel *k = ko->kernel;
    bool subst = ko->ntargs && v->type.dependent;
    ArgInfo i = {0};
    i.name = v->name;
    i.type = oklc_subst_targs(c, k, v->type_written ? v->type_written : v->type.spelling,
                              ko->targs, ko->ntargs);
    i.element = v->type.element ? v->type.element : "";
    if (subst)
        i.element = oklc_subst_targs(c, k, i.element, ko->targs, ko->ntargs);
    i.kind = arg_kind(&c->arena, v, subst ? i.type : v->type.spelling, subst, &i.size);
    i.pointer = v->type.pointer || v->type.array;
    i.is_const = v->type.pointer ? v->type.element_const : v->type.is_const;
    i.restrict_ = v->restrict_ != NULL;
    return i;
}

static cJSON *argument(const ArgInfo *i)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", i->name);
    cJSON_AddStringToObject(o, "type", i->type);
    cJSON_AddStringToObject(o, "element", i->element);
    cJSON_AddBoolToObject(o, "pointer", i->pointer);
    cJSON_AddBoolToObject(o, "const", i->is_const);
    cJSON_AddBoolToObject(o, "restrict", i->restrict_);
    cJSON_AddStringToObject(o, "kind", i->kind);
    cJSON_AddNumberToObject(o, "size", (double)i->size);
    return o;
}

static cJSON *kernel(const KernelOut *ko, const ArgInfo *args)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", ko->name);
    cJSON_AddStringToObject(o, "entry", ko->entry);
    cJSON *fns = cJSON_AddArrayToObject(o, "functions");
    for (size_t i = 0; i < ko->nfunctions; i++)
        cJSON_AddItemToArray(fns, cJSON_CreateString(ko->functions[i]));
    if (ko->nfaults) {
        cJSON *fs = cJSON_AddArrayToObject(o, "faults");
        for (size_t i = 0; i < ko->nfaults; i++)
            cJSON_AddItemToArray(fs, cJSON_CreateString(ko->faults[i]));
    }
    cJSON *list = cJSON_AddArrayToObject(o, "arguments");
    for (size_t i = 0; i < ko->kernel->nparams; i++)
        cJSON_AddItemToArray(list, argument(&args[i]));
    return o;
}

/* ---- template kernels ---------------------------------------------------- */

typedef struct TParamInfo {
    const char *name, *kind, *type, *def;    /* kind: type, value, pack, template */
} TParamInfo;

typedef struct TArgInfo {
    const char *name, *type, *deduces;       /* deduces: a type parameter, or NULL */
    bool        pointer;
} TArgInfo;

typedef struct TemplateInfo {
    const Kernel *kernel;
    TParamInfo   *params;
    size_t        nparams;
    TArgInfo     *args;
} TemplateInfo;

static bool starts_word(const char *s, const char *word)
{
    size_t n = strlen(word);
    return !strncmp(s, word, n) && !ident_char(s[n]);
}

/* "typename T = float" -> type T, default float; "int N = 8" -> value N of
 * type int, default 8; "class... Ts" -> pack. */
static TParamInfo tparam_info(Arena *a, const char *decl)
{
    TParamInfo p = {param_name(a, decl), "value", NULL, NULL};
    const char *eq = strchr(decl, '=');
    const char *dots = strstr(decl, "...");
    if (dots && (!eq || dots < eq))
        p.kind = "pack";
    else if (starts_word(decl, "template"))
        p.kind = "template";
    else if (starts_word(decl, "typename") || starts_word(decl, "class"))
        p.kind = "type";
    if (eq) {
        const char *d = eq + 1;
        while (isspace((unsigned char)*d))
            d++;
        p.def = d;
    }
    if (!strcmp(p.kind, "value")) {    /* the text before the name */
        const char *end = eq ? eq : decl + strlen(decl);
        while (end > decl && !ident_char(end[-1]))
            end--;
        end -= strlen(p.name);
        while (end > decl && isspace((unsigned char)end[-1]))
            end--;
        p.type = oklc_arena_strndup(a, decl, (size_t)(end - decl));
    }
    return p;
}

/* The type parameter an argument's type deduces from what a run passes,
 * as C++ deduces it: `T *x`, `const T *x`, `T x[]` from the element type of
 * typed memory; `T a`, `const T a`, `const T &a` from a scalar's type.
 * NULL for anything else (`int n`, `vec<T> *v`: not deduced). */
static const char *deduced(const TemplateInfo *t, const Var *v)
{
    const char *s = v->type_written ? v->type_written : "", *ident = NULL;
    size_t idlen = 0;
    int stars = 0, idents = 0;
    for (const char *p = s; *p;) {
        if (p[0] == '[' && p[1] == '[') {    /* an attribute: skipped */
            const char *e = strstr(p, "]]");
            p = e ? e + 2 : p + strlen(p);
        } else if (ident_char(*p)) {
            const char *e = p;
            while (ident_char(*e))
                e++;
            size_t n = (size_t)(e - p);
            static const char *const quals[] = {"const", "volatile", "restrict", "__restrict",
                                                "__restrict__"};
            bool qual = false;
            for (size_t i = 0; i < OKLC_COUNTOF(quals); i++)
                qual |= strlen(quals[i]) == n && !memcmp(quals[i], p, n);
            if (!qual) {
                ident = p;
                idlen = n;
                idents++;
            }
            p = e;
        } else {
            if (*p == '*')
                stars++;
            else if (*p != '&' && !isspace((unsigned char)*p))
                return NULL;
            p++;
        }
    }
    bool pointer = v->type.pointer || v->type.array;
    if (idents != 1 || stars != (pointer && !v->type.array ? 1 : 0))
        return NULL;
    for (size_t i = 0; i < t->nparams; i++)
        if (!strcmp(t->params[i].kind, "type") && strlen(t->params[i].name) == idlen &&
            !memcmp(t->params[i].name, ident, idlen))
            return t->params[i].name;
    return NULL;
}

static TemplateInfo template_info(oklc_ctx *c, const Kernel *k)
{
    TemplateInfo t = {.kernel = k};
    const char **decls;
    t.nparams = k->template_params ? split_list(&c->arena, k->template_params, &decls) : 0;
    t.params = oklc_arena_alloc(&c->arena, (t.nparams + 1) * sizeof *t.params);
    for (size_t i = 0; i < t.nparams; i++)
        t.params[i] = tparam_info(&c->arena, decls[i]);
    t.args = oklc_arena_alloc(&c->arena, (k->nparams + 1) * sizeof *t.args);
    for (size_t i = 0; i < k->nparams; i++) {
        const Var *v = k->params[i];
        t.args[i] = (TArgInfo){v->name, v->type_written ? v->type_written : v->type.spelling,
                               deduced(&t, v), v->type.pointer || v->type.array};
    }
    return t;
}

static cJSON *template_kernel(const TemplateInfo *t)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", t->kernel->name);
    cJSON *params = cJSON_AddArrayToObject(o, "parameters");
    for (size_t i = 0; i < t->nparams; i++) {
        const TParamInfo *p = &t->params[i];
        cJSON *po = cJSON_CreateObject();
        cJSON_AddStringToObject(po, "name", p->name);
        cJSON_AddStringToObject(po, "kind", p->kind);
        if (p->type)
            cJSON_AddStringToObject(po, "type", p->type);
        if (p->def)
            cJSON_AddStringToObject(po, "default", p->def);
        else
            cJSON_AddNullToObject(po, "default");
        cJSON_AddItemToArray(params, po);
    }
    cJSON *args = cJSON_AddArrayToObject(o, "arguments");
    for (size_t i = 0; i < t->kernel->nparams; i++) {
        const TArgInfo *a = &t->args[i];
        cJSON *ao = cJSON_CreateObject();
        cJSON_AddStringToObject(ao, "name", a->name);
        cJSON_AddStringToObject(ao, "type", a->type);
        cJSON_AddBoolToObject(ao, "pointer", a->pointer);
        if (a->deduces)
            cJSON_AddStringToObject(ao, "deduces", a->deduces);
        else
            cJSON_AddNullToObject(ao, "deduces");
        cJSON_AddItemToArray(args, ao);
    }
    return o;
}

const char *oklc_metadata_json(oklc_ctx *c, const KernelOut *ks, size_t n, const char *input_hash)
{
    ArgInfo **infos = oklc_arena_alloc(&c->arena, (n + 1) * sizeof *infos);
    for (size_t k = 0; k < n; k++) {
        infos[k] = oklc_arena_alloc(&c->arena, (ks[k].kernel->nparams + 1) * sizeof(ArgInfo));
        for (size_t i = 0; i < ks[k].kernel->nparams; i++)
            infos[k][i] = arg_info(c, &ks[k], ks[k].kernel->params[i]);
    }
    const Model *m = c->model;
    size_t ntemplates = 0;
    TemplateInfo *templates =
        oklc_arena_alloc(&c->arena, ((m ? m->nkernels : 0) + 1) * sizeof *templates);
    for (size_t k = 0; m && k < m->nkernels; k++)
        if (m->kernels[k]->is_template)
            templates[ntemplates++] = template_info(c, m->kernels[k]);
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "oklc", OKLC_VERSION_STRING);
    cJSON_AddStringToObject(root, "backend", oklc_backend_name(c->backend));
    cJSON_AddStringToObject(root, "input_hash", input_hash);
    cJSON *list = cJSON_AddArrayToObject(root, "kernels");
    for (size_t k = 0; k < n; k++)
        cJSON_AddItemToArray(list, kernel(&ks[k], infos[k]));
    /* only where there are templates: the metadata of other files is as before */
    cJSON *tlist = ntemplates ? cJSON_AddArrayToObject(root, "templates") : NULL;
    for (size_t t = 0; t < ntemplates; t++)
        cJSON_AddItemToArray(tlist, template_kernel(&templates[t]));
    char *s = cJSON_Print(root);
    cJSON_Delete(root);
    if (!s)
        oklc_arena_oom(&c->arena);
    /* cJSON's memory: the context frees it (an arena copy could run out
     * of memory with it still to free) */
    cJSON_free(c->metadata);
    c->metadata = s;
    return s;
}
