/*
 * metadata.c - the JSON the runtime reads: for each kernel its entry
 * symbol, the device-level functions it became and its arguments. The
 * format is described in docs/metadata.md.
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
    {"int16_t", "int", 2}, {"uint16_t", "int", 2},
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
    if (v->is_float && (v->size == 4 || v->size == 8))
        return "float";
    return "struct";
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
    cJSON *list = cJSON_AddArrayToObject(o, "arguments");
    for (size_t i = 0; i < ko->kernel->nparams; i++)
        cJSON_AddItemToArray(list, argument(&args[i]));
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
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "oklc", OKLC_VERSION_STRING);
    cJSON_AddStringToObject(root, "backend", oklc_backend_name(c->backend));
    cJSON_AddStringToObject(root, "input_hash", input_hash);
    cJSON *list = cJSON_AddArrayToObject(root, "kernels");
    for (size_t k = 0; k < n; k++)
        cJSON_AddItemToArray(list, kernel(&ks[k], infos[k]));
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
