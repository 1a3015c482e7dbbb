/*
 * args.c - a kernel's parameters, read from the transpiler's metadata, and
 * the arguments of oklc_kernel_run checked against them and packed.
 *
 * The calling convention of CPU kernels: the entry takes one array, args[i]
 * pointing to the i-th argument's value: for a pointer parameter, to a
 * variable holding the device address; for a scalar, to a value of exactly
 * the parameter's type; for a struct, to its bytes. Native kernels have no
 * metadata: their arguments are packed as given, unchecked.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "rt.h"

void oklc_rt_params_free(Param *p, int n)
{
    for (int i = 0; i < n; i++) {
        oklc_free(p[i].name);
        oklc_free(p[i].type);
    }
    oklc_free(p);
}

void oklc_rt_strings_free(char **s, int n)
{
    for (int i = 0; s && i < n; i++)
        oklc_free(s[i]);
    oklc_free(s);
}

oklc_status oklc_rt_metadata_backend(const char *metadata, char **backend)
{
    cJSON *root = cJSON_Parse(metadata);
    const char *b = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "backend"));
    *backend = b ? oklc_rt_strdup(b) : NULL;
    cJSON_Delete(root);
    return b && !*backend ? oklc_rt_oom() : OKLC_OK;
}

static bool same_name(const char *a, const char *b, bool ignore_blanks)
{
    for (;; a++, b++) {
        while (ignore_blanks && *a == ' ')
            a++;
        while (ignore_blanks && *b == ' ')
            b++;
        if (*a != *b)
            return false;
        if (!*a)
            return true;
    }
}

/* By its exact name, else ignoring blanks: "scale<float,256>" is the
 * instance the transpiler names "scale<float, 256>". */
static const cJSON *find(const cJSON *kernels, const char *name)
{
    for (int pass = 0; pass < 2; pass++) {
        const cJSON *k;
        cJSON_ArrayForEach(k, kernels) {
            const char *n = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(k, "name"));
            if (n && same_name(n, name, pass == 1))
                return k;
        }
    }
    return NULL;
}

static oklc_status not_found(const cJSON *kernels, const char *where, const char *name)
{
    size_t n = 1;
    const cJSON *k;
    cJSON_ArrayForEach(k, kernels) {
        const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(k, "name"));
        n += (s ? strlen(s) : 0) + 2;
    }
    char *list = oklc_malloc(n);
    if (!list)
        return oklc_rt_oom();
    list[0] = '\0';
    cJSON_ArrayForEach(k, kernels) {
        const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(k, "name"));
        if (s)
            strcat(strcat(list, list[0] ? ", " : ""), s);
    }
    oklc_status st = oklc_rt_fail(OKLC_ERR_ARGUMENT, "no kernel '%s' in '%s' (its kernels: %s)",
                                  name, where, list[0] ? list : "none");
    oklc_free(list);
    return st;
}

/* "kind" in the metadata (docs/metadata.md); the size says which int or
 * float. */
static bool param_kind(const char *s, ParamKind *k)
{
    static const struct {
        const char *name;
        ParamKind   kind;
    } kinds[] = {
        {"memory", PARAM_MEMORY}, {"int", PARAM_INT}, {"float", PARAM_FLOAT},
        {"struct", PARAM_STRUCT},
    };
    for (size_t i = 0; s && i < OKLC_COUNTOF(kinds); i++) {
        if (!strcmp(s, kinds[i].name)) {
            *k = kinds[i].kind;
            return true;
        }
    }
    return false;
}

static oklc_status read_param(const cJSON *a, Param *p, const char *where)
{
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(a, "name"));
    const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(a, "type"));
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(a, "kind"));
    const cJSON *size = cJSON_GetObjectItemCaseSensitive(a, "size");
    if (!name || !type || !param_kind(kind, &p->kind) || !cJSON_IsNumber(size) ||
        size->valuedouble < 0)
        return oklc_rt_fail(OKLC_ERR_LOAD, "the metadata of '%s' has an argument without a "
                            "name, type, kind or size", where);
    p->size = (size_t)size->valuedouble;
    p->name = oklc_rt_strdup(name);
    p->type = oklc_rt_strdup(type);
    return p->name && p->type ? OKLC_OK : oklc_rt_oom();
}

static oklc_status read_params(const cJSON *k, const char *where, Param **params, int *n)
{
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(k, "arguments");
    int count = cJSON_GetArraySize(args);
    Param *p = oklc_malloc((size_t)(count ? count : 1) * sizeof *p);
    if (!p)
        return oklc_rt_oom();
    memset(p, 0, (size_t)(count ? count : 1) * sizeof *p);
    oklc_status st = OKLC_OK;
    for (int i = 0; i < count && !st; i++)
        st = read_param(cJSON_GetArrayItem(args, i), &p[i], where);
    if (st) {
        oklc_rt_params_free(p, count);
        return st;
    }
    *params = p;
    *n = count;
    return OKLC_OK;
}

static oklc_status read_kernel(const cJSON *root, const char *where, const char *name,
                               char **symbol, Param **params, int *n)
{
    const cJSON *kernels = cJSON_GetObjectItemCaseSensitive(root, "kernels");
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "native"))) {
        *symbol = oklc_rt_strdup(name);    /* the name is the extern "C" symbol */
        *params = NULL;
        *n = -1;
        return *symbol ? OKLC_OK : oklc_rt_oom();
    }
    const cJSON *k = find(kernels, name);
    if (!k)
        return not_found(kernels, where, name);
    const char *entry = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(k, "entry"));
    if (!entry)
        return oklc_rt_fail(OKLC_ERR_LOAD, "the metadata of '%s' has no entry for kernel '%s'",
                            where, name);
    oklc_status st = read_params(k, where, params, n);
    if (!st && !(*symbol = oklc_rt_strdup(entry))) {
        oklc_rt_params_free(*params, *n);
        *params = NULL;
        *n = 0;
        st = oklc_rt_oom();
    }
    return st;
}

/* The metadata's JSON (cJSON_Delete it), or NULL with the failure
 * recorded (OKLC_ERR_LOAD). */
static cJSON *parse(const char *metadata, const char *where)
{
    cJSON *root = cJSON_Parse(metadata);
    if (!root)
        oklc_rt_fail(OKLC_ERR_LOAD, "the metadata of '%s' is not valid JSON", where);
    return root;
}

oklc_status oklc_rt_find_kernel(const char *metadata, const char *where, const char *name,
                                char **symbol, Param **params, int *nparams)
{
    cJSON *root = parse(metadata, where);
    oklc_status st = root ? read_kernel(root, where, name, symbol, params, nparams)
                          : OKLC_ERR_LOAD;
    cJSON_Delete(root);
    return st;
}

/* The list `key` of the kernel's entry `k`. */
static oklc_status read_strings(const cJSON *k, const char *where, const char *name,
                                const char *key, char ***functions, int *n)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(k, key), *f;
    int count = cJSON_GetArraySize(list), i = 0;
    char **names = oklc_malloc((size_t)(count ? count : 1) * sizeof *names);
    if (!names)
        return oklc_rt_oom();
    cJSON_ArrayForEach(f, list) {
        const char *s = cJSON_GetStringValue(f);
        if (!s) {
            oklc_rt_strings_free(names, i);
            return oklc_rt_fail(OKLC_ERR_LOAD, "the metadata of '%s' has an entry of \"%s\" "
                                "of kernel '%s' that is not a string", where, key, name);
        }
        if (!(names[i] = oklc_rt_strdup(s))) {
            oklc_rt_strings_free(names, i);
            return oklc_rt_oom();
        }
        i++;
    }
    *functions = names;
    *n = count;
    return OKLC_OK;
}

oklc_status oklc_rt_find_strings(const char *metadata, const char *where, const char *name,
                                 const char *key, char ***functions, int *n)
{
    cJSON *root = parse(metadata, where);
    const cJSON *kernels = cJSON_GetObjectItemCaseSensitive(root, "kernels");
    const cJSON *k = find(kernels, name);    /* none in no JSON */
    oklc_status st = !root ? OKLC_ERR_LOAD
                     : !k  ? not_found(kernels, where, name)
                           : read_strings(k, where, name, key, functions, n);
    cJSON_Delete(root);
    return st;
}

/* ---- arguments ------------------------------------------------------------------ */

static const char *const given_names[] = {
    [OKLC_ARG_MEMORY] = "memory", [OKLC_ARG_INT] = "an int", [OKLC_ARG_LONG] = "a long",
    [OKLC_ARG_FLOAT] = "a float", [OKLC_ARG_DOUBLE] = "a double",
    [OKLC_ARG_STRUCT] = "a struct"};

/* The one oklc_arg kind a parameter takes; false when none can. */
static bool wanted(const Param *p, oklc_arg_kind *kind)
{
    switch (p->kind) {
    case PARAM_MEMORY: *kind = OKLC_ARG_MEMORY; return true;
    case PARAM_STRUCT: *kind = OKLC_ARG_STRUCT; return true;
    case PARAM_INT:
        *kind = p->size == 8 ? OKLC_ARG_LONG : OKLC_ARG_INT;
        return p->size == 1 || p->size == 2 || p->size == 4 || p->size == 8;
    case PARAM_FLOAT:                  /* half: a float, rounded (C has no half) */
        *kind = p->size == 8 ? OKLC_ARG_DOUBLE : OKLC_ARG_FLOAT;
        return p->size == 2 || p->size == 4 || p->size == 8;
    }
    return false;
}

static oklc_status mismatch(const oklc_kernel *k, int i, const oklc_arg *a)
{
    static const char *const how[] = {
        [OKLC_ARG_MEMORY] = "oklc_arg_mem", [OKLC_ARG_INT] = "oklc_arg_int",
        [OKLC_ARG_LONG] = "oklc_arg_long", [OKLC_ARG_FLOAT] = "oklc_arg_float",
        [OKLC_ARG_DOUBLE] = "oklc_arg_double", [OKLC_ARG_STRUCT] = "oklc_arg_struct"};
    const Param *p = &k->params[i];
    oklc_arg_kind want;
    char given[64], hint[96];
    snprintf(given, sizeof given, "%s", given_names[a->kind]);
    if (a->kind == OKLC_ARG_STRUCT)
        snprintf(given, sizeof given, "a struct of %zu bytes", a->u.bytes.size);
    if (!wanted(p, &want))
        snprintf(hint, sizeof hint, "no oklc_arg kind passes a %zu-byte value", p->size);
    else if (want == OKLC_ARG_STRUCT)
        snprintf(hint, sizeof hint, "%zu bytes, passed with oklc_arg_struct", p->size);
    else
        snprintf(hint, sizeof hint, "pass it with %s", how[want]);
    return oklc_rt_fail(OKLC_ERR_ARGUMENT, "argument %d ('%s') of '%s' is '%s', but %s was "
                        "given (%s)", i + 1, p->name, k->name, p->type, given, hint);
}

/* A scalar stored at the parameter's exact size. */
static void convert(const Param *p, const oklc_arg *a, Slot *s)
{
    switch (a->kind) {
    case OKLC_ARG_INT:
        if (p && p->size == 1)
            s->i8 = (int8_t)a->u.i32;
        else if (p && p->size == 2)
            s->i16 = (int16_t)a->u.i32;
        else
            s->i32 = a->u.i32;
        break;
    case OKLC_ARG_LONG: s->i64 = a->u.i64; break;
    case OKLC_ARG_FLOAT:
        if (p && p->size == 2)
            s->f16 = oklc_half_from_float(a->u.f32);
        else
            s->f32 = a->u.f32;
        break;
    case OKLC_ARG_DOUBLE: s->f64 = a->u.f64; break;
    case OKLC_ARG_MEMORY: s->ptr = a->u.mem->ptr; break;
    case OKLC_ARG_STRUCT: break;
    }
}

/* What no parameter can take, checked for native kernels too. */
static oklc_status check_given(const oklc_kernel *k, int i, const oklc_arg *a)
{
    if ((unsigned)a->kind > OKLC_ARG_STRUCT)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "argument %d of '%s' has no valid kind (%d)",
                            i + 1, k->name, (int)a->kind);
    if (a->kind == OKLC_ARG_MEMORY && !a->u.mem)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "argument %d of '%s' is NULL memory", i + 1,
                            k->name);
    if (a->kind == OKLC_ARG_MEMORY && a->u.mem->dev != k->dev)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "argument %d of '%s' is memory of another "
                            "device", i + 1, k->name);
    if (a->kind == OKLC_ARG_STRUCT && !a->u.bytes.data)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "argument %d of '%s' is a struct at NULL", i + 1,
                            k->name);
    return OKLC_OK;
}

oklc_status oklc_rt_pack(const oklc_kernel *k, int nargs, const oklc_arg *args, Slot *slots,
                         void **ptrs)
{
    if (k->nparams >= 0 && nargs != k->nparams)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "'%s' takes %d argument%s, but %d %s given",
                            k->name, k->nparams, k->nparams == 1 ? "" : "s", nargs,
                            nargs == 1 ? "was" : "were");
    for (int i = 0; i < nargs; i++) {
        const oklc_arg *a = &args[i];
        const Param *p = k->nparams >= 0 ? &k->params[i] : NULL;
        oklc_arg_kind want;
        oklc_status st = check_given(k, i, a);
        if (st)
            return st;
        if (p && (!wanted(p, &want) || want != a->kind ||
                  (want == OKLC_ARG_STRUCT && a->u.bytes.size != p->size)))
            return mismatch(k, i, a);
        convert(p, a, &slots[i]);
        /* the entry copies the struct; the cast drops a const it keeps */
        ptrs[i] = a->kind == OKLC_ARG_STRUCT ? (void *)a->u.bytes.data : &slots[i];
    }
    return OKLC_OK;
}
