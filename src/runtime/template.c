/*
 * template.c - template kernels built by their bare name ("scale"): the
 * runtime instantiates them from the arguments of each run.
 *
 * The metadata lists each template kernel under "templates": its template
 * parameters (type or value, a default) and, per argument, the type
 * parameter it deduces (docs/metadata.md). A run deduces as C++ does:
 * `T *x` takes T from typed memory's element type, `const T a` from the
 * scalar's type; the parameters no argument gives come from the props
 * (oklc_props_template_arg), else their defaults. The instance's name,
 * "scale<float, 256>", is what kernel.c builds (through the cache, as any
 * instance) on its first run and keeps here for the next.
 */
#include <ctype.h>
#include <pthread.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "rt.h"

typedef enum TParamKind { TP_TYPE, TP_VALUE, TP_OTHER } TParamKind;   /* other: pack, ... */

typedef struct TParam {
    char      *name;
    char      *def;       /* the default as written, or NULL */
    TParamKind kind;
} TParam;

typedef struct TArg {
    char *name, *type;    /* as written: "const T *" */
    bool  pointer;
    int   deduces;        /* the type parameter its type is, or -1 */
} TArg;

typedef struct Instance {
    char        *name;
    oklc_kernel *k;
} Instance;

struct Template {
    char           *path, *text;    /* text: NULL when built from the path */
    oklc_props     *props;
    TParam         *params;
    int             nparams;
    TArg           *args;
    int             nargs;
    Instance       *instances;
    size_t          ninstances;
    pthread_mutex_t lock;
};

void oklc_rt_template_free(Template *t, void (*free_instance)(oklc_kernel *k))
{
    if (!t)
        return;
    for (size_t i = 0; i < t->ninstances; i++) {
        free_instance(t->instances[i].k);
        oklc_free(t->instances[i].name);
    }
    oklc_free(t->instances);
    for (int i = 0; i < t->nparams; i++) {
        oklc_free(t->params[i].name);
        oklc_free(t->params[i].def);
    }
    oklc_free(t->params);
    for (int i = 0; i < t->nargs; i++) {
        oklc_free(t->args[i].name);
        oklc_free(t->args[i].type);
    }
    oklc_free(t->args);
    oklc_props_free(t->props);
    oklc_free(t->path);
    oklc_free(t->text);
    pthread_mutex_destroy(&t->lock);
    oklc_free(t);
}

/* ---- from the metadata ------------------------------------------------------------ */

static const char *string(const cJSON *o, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static const cJSON *find_template(const cJSON *root, const char *name)
{
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(root, "templates")) {
        const char *n = string(t, "name");
        if (n && !strcmp(n, name))
            return t;
    }
    return NULL;
}

static char *copy(const char *s)
{
    return s ? oklc_rt_strdup(s) : NULL;
}

static int param_index(const Template *t, const char *name)
{
    for (int i = 0; name && i < t->nparams; i++)
        if (!strcmp(t->params[i].name, name))
            return i;
    return -1;
}

static oklc_status bad_metadata(const char *where, const char *name)
{
    return oklc_rt_fail(OKLC_ERR_LOAD, "the metadata of '%s' has a template kernel '%s' "
                        "without a parameter's or argument's name", where, name);
}

static oklc_status read_template(const cJSON *o, const char *where, const char *name,
                                 Template *t)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(o, "parameters");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(o, "arguments"), *it;
    int np = cJSON_GetArraySize(params), na = cJSON_GetArraySize(args);
    t->params = oklc_malloc((size_t)(np + 1) * sizeof *t->params);
    t->args = oklc_malloc((size_t)(na + 1) * sizeof *t->args);
    if (!t->params || !t->args)
        return oklc_rt_oom();
    cJSON_ArrayForEach(it, params) {
        const char *n = string(it, "name"), *kind = string(it, "kind");
        if (!n || !kind)
            return bad_metadata(where, name);
        TParam *p = &t->params[t->nparams++];
        *p = (TParam){copy(n), copy(string(it, "default")),
                      !strcmp(kind, "type") ? TP_TYPE : !strcmp(kind, "value") ? TP_VALUE
                                                                              : TP_OTHER};
        if (!p->name || (string(it, "default") && !p->def))
            return oklc_rt_oom();
    }
    cJSON_ArrayForEach(it, args) {
        const char *n = string(it, "name"), *type = string(it, "type");
        if (!n || !type)
            return bad_metadata(where, name);
        TArg *a = &t->args[t->nargs++];
        *a = (TArg){copy(n), copy(type),
                    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "pointer")),
                    param_index(t, string(it, "deduces"))};
        if (!a->name || !a->type)
            return oklc_rt_oom();
    }
    return OKLC_OK;
}

/* A template argument of the props that names no parameter is a typo. */
static oklc_status check_props(const Template *t, const char *name)
{
    for (size_t i = 0; i < t->props->ntargs; i++) {
        const char *n = t->props->targs[i].name;
        if (param_index(t, n) >= 0)
            continue;
        char list[512] = "";
        for (int j = 0; j < t->nparams; j++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", j ? ", " : "",
                     t->params[j].name);
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_props_template_arg names '%s', which is "
                            "no template parameter of '%s' (its parameters: %s)", n, name,
                            list);
    }
    return OKLC_OK;
}

oklc_status oklc_rt_template_new(const char *metadata, const char *where, const char *name,
                                 const char *path, const char *text, const oklc_props *props,
                                 Template **out)
{
    *out = NULL;
    cJSON *root = cJSON_Parse(metadata);
    if (!root)
        return oklc_rt_fail(OKLC_ERR_LOAD, "the metadata of '%s' is not valid JSON", where);
    const cJSON *o = find_template(root, name);
    if (!o) {
        cJSON_Delete(root);
        return OKLC_OK;
    }
    Template *t = oklc_malloc(sizeof *t);
    if (!t) {
        cJSON_Delete(root);
        return oklc_rt_oom();
    }
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->lock, NULL);
    /* a relative path is the caller's folder now: later runs may be elsewhere */
    t->path = path[0] == '/' || text ? oklc_rt_strdup(path) : oklc_rt_absolute(path);
    t->text = copy(text);
    t->props = oklc_rt_props_copy(props);
    oklc_status st = t->path && (!text || t->text) && t->props ? OKLC_OK : oklc_rt_oom();
    if (!st)
        st = read_template(o, where, name, t);
    if (!st)
        st = check_props(t, name);
    cJSON_Delete(root);
    if (st)
        oklc_rt_template_free(t, NULL);    /* no instance yet */
    else
        *out = t;
    return st;
}

const char *oklc_rt_template_path(const Template *t)
{
    return t->path;
}

const char *oklc_rt_template_text(const Template *t)
{
    return t->text;
}

const oklc_props *oklc_rt_template_props(const Template *t)
{
    return t->props;
}

int oklc_rt_template_nargs(const Template *t)
{
    return t->nargs;
}

/* ---- deduction -------------------------------------------------------------------- */

static const char *prop_value(const Template *t, const char *name)
{
    for (size_t i = 0; i < t->props->ntargs; i++)
        if (!strcmp(t->props->targs[i].name, name))
            return t->props->targs[i].value;
    return NULL;
}

/* The type argument i gives its type parameter, or a failure saying why
 * it gives none. */
static oklc_status deduce_one(const Template *t, const char *kernel, int i, const oklc_arg *a,
                              const char **type)
{
    static const char *const scalars[] = {
        [OKLC_ARG_INT] = "int", [OKLC_ARG_LONG] = "long", [OKLC_ARG_FLOAT] = "float",
        [OKLC_ARG_DOUBLE] = "double"};
    const TArg *p = &t->args[i];
    const char *param = t->params[p->deduces].name;
    if ((unsigned)a->kind > OKLC_ARG_STRUCT)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "argument %d of '%s' has no valid kind (%d)",
                            i + 1, kernel, (int)a->kind);
    if (p->pointer && a->kind != OKLC_ARG_MEMORY)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "argument %d ('%s') of '%s' is '%s', but no "
                            "memory was given (pass it with oklc_arg_mem)", i + 1, p->name,
                            kernel, p->type);
    if (p->pointer && !a->u.mem)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "argument %d of '%s' is NULL memory", i + 1,
                            kernel);
    if (p->pointer) {
        *type = oklc_type_name(a->u.mem->type);
        if (!*type)
            return oklc_rt_fail(OKLC_ERR_ARGUMENT, "cannot deduce template parameter '%s' of "
                                "'%s' from argument %d ('%s', '%s'): its memory is untyped "
                                "(allocate it with oklc_memory_alloc_typed)", param, kernel,
                                i + 1, p->name, p->type);
        return OKLC_OK;
    }
    *type = a->kind < OKLC_COUNTOF(scalars) ? scalars[a->kind] : NULL;
    if (!*type)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "cannot deduce template parameter '%s' of '%s' "
                            "from argument %d ('%s', '%s'): %s was given, not a scalar "
                            "(oklc_arg_int, oklc_arg_long, oklc_arg_float, oklc_arg_double)",
                            param, kernel, i + 1, p->name, p->type,
                            a->kind == OKLC_ARG_MEMORY ? "memory" : "a struct");
    return OKLC_OK;
}

/* `text` with the names of parameters before `upto` replaced by their
 * values: a default may use them ("int B = sizeof(T)"). */
static char *substitute(const Template *t, const char *text, const char *const *values,
                        int upto)
{
    size_t cap = strlen(text) + 1, len = 0;
    for (int j = 0; j < upto; j++)
        cap += strlen(values[j]) * strlen(text);    /* at most one per character */
    char *out = oklc_malloc(cap);
    if (!out)
        return NULL;
    for (const char *p = text; *p;) {
        bool word = isalnum((unsigned char)*p) || *p == '_';
        if (!word || (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))) {
            out[len++] = *p++;
            continue;
        }
        const char *e = p;
        while (isalnum((unsigned char)*e) || *e == '_')
            e++;
        const char *with = NULL;
        for (int j = 0; j < upto && !with; j++)
            if (strlen(t->params[j].name) == (size_t)(e - p) &&
                !memcmp(t->params[j].name, p, (size_t)(e - p)))
                with = values[j];
        size_t n = with ? strlen(with) : (size_t)(e - p);
        memcpy(out + len, with ? with : p, n);
        len += n;
        p = e;
    }
    out[len] = '\0';
    return out;
}

/* "scale<float, 256>", each value being the explicit one, the deduced
 * one, or the default. */
static oklc_status instance_name(const Template *t, const char *kernel, const char **got,
                                 const int *from, char **instance)
{
    char **owned = oklc_malloc((size_t)(t->nparams + 1) * sizeof *owned);
    const char **values = oklc_malloc((size_t)(t->nparams + 1) * sizeof *values);
    oklc_status st = owned && values ? OKLC_OK : oklc_rt_oom();
    size_t len = strlen(kernel) + 3;
    int done = 0;
    for (; !st && done < t->nparams; done++) {
        const TParam *p = &t->params[done];
        const char *given = prop_value(t, p->name);
        owned[done] = NULL;
        if (given && got[done] && strcmp(given, got[done]))
            st = oklc_rt_fail(OKLC_ERR_ARGUMENT, "template parameter '%s' of '%s' is '%s' "
                              "(oklc_props_template_arg), but argument %d ('%s') deduces "
                              "'%s'", p->name, kernel, given, from[done] + 1,
                              t->args[from[done]].name, got[done]);
        else if (!given && !got[done] && !p->def)
            st = oklc_rt_fail(OKLC_ERR_ARGUMENT, "cannot instantiate '%s': template "
                              "parameter '%s' is %s and has no default (give it with "
                              "oklc_props_template_arg(props, \"%s\", ...) before "
                              "oklc_kernel_build)", kernel, p->name,
                              p->kind == TP_TYPE ? "deduced from no argument"
                                                 : "not deduced from the arguments", p->name);
        else if (!given && !got[done] && !(owned[done] = substitute(t, p->def, values, done)))
            st = oklc_rt_oom();
        values[done] = given ? given : got[done] ? got[done] : owned[done];
        if (!st)
            len += strlen(values[done]) + 2;
    }
    if (!st && !(*instance = oklc_malloc(len)))
        st = oklc_rt_oom();
    if (!st) {
        char *s = *instance;
        s += sprintf(s, "%s<", kernel);
        for (int j = 0; j < t->nparams; j++)
            s += sprintf(s, "%s%s", j ? ", " : "", values[j]);
        strcpy(s, ">");
    }
    for (int j = 0; owned && j < done; j++)
        oklc_free(owned[j]);
    oklc_free(owned);
    oklc_free(values);
    return st;
}

oklc_status oklc_rt_template_deduce(const Template *t, const char *kernel, int nargs,
                                    const oklc_arg *args, char **instance)
{
    *instance = NULL;
    if (nargs != t->nargs)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "'%s' takes %d argument%s, but %d %s given",
                            kernel, t->nargs, t->nargs == 1 ? "" : "s", nargs,
                            nargs == 1 ? "was" : "were");
    const char **got = oklc_malloc((size_t)(t->nparams + 1) * sizeof *got);
    int *from = oklc_malloc((size_t)(t->nparams + 1) * sizeof *from);
    oklc_status st = got && from ? OKLC_OK : oklc_rt_oom();
    for (int j = 0; !st && j < t->nparams; j++)
        got[j] = NULL;
    for (int i = 0; !st && i < nargs; i++) {
        int d = t->args[i].deduces;
        const char *type = NULL;
        if (d < 0)
            continue;
        st = deduce_one(t, kernel, i, &args[i], &type);
        if (!st && got[d] && strcmp(got[d], type))
            st = oklc_rt_fail(OKLC_ERR_ARGUMENT, "template parameter '%s' of '%s' is deduced "
                              "as '%s' from argument %d ('%s') and as '%s' from argument %d "
                              "('%s')", t->params[d].name, kernel, got[d], from[d] + 1,
                              t->args[from[d]].name, type, i + 1, t->args[i].name);
        if (!st && !got[d]) {
            got[d] = type;
            from[d] = i;
        }
    }
    if (!st)
        st = instance_name(t, kernel, got, from, instance);
    oklc_free(got);
    oklc_free(from);
    return st;
}

/* ---- the instances built ---------------------------------------------------------- */

void oklc_rt_template_lock(Template *t)
{
    pthread_mutex_lock(&t->lock);
}

void oklc_rt_template_unlock(Template *t)
{
    pthread_mutex_unlock(&t->lock);
}

oklc_kernel *oklc_rt_template_find(const Template *t, const char *instance)
{
    for (size_t i = 0; i < t->ninstances; i++)
        if (!strcmp(t->instances[i].name, instance))
            return t->instances[i].k;
    return NULL;
}

oklc_status oklc_rt_template_add(Template *t, const char *instance, oklc_kernel *k)
{
    char *name = oklc_rt_strdup(instance);
    Instance *bigger = name ? oklc_realloc(t->instances,
                                           (t->ninstances + 1) * sizeof *bigger) : NULL;
    if (!bigger) {
        oklc_free(name);
        return oklc_rt_oom();
    }
    t->instances = bigger;
    t->instances[t->ninstances++] = (Instance){name, k};
    return OKLC_OK;
}
