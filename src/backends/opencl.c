/*
 * opencl.c - the OpenCL backend: OpenCL C 1.2. Device kernels are
 * `__kernel`, blocks and threads work-groups and work-items (gpu.c);
 * what OpenCL C adds:
 *
 *   address spaces  `__global` on the kernel's pointer parameters and on
 *                   every pointer derived from them, `__local` on those
 *                   into @shared memory, `__constant` on those into
 *                   constant globals; a function's pointer parameters get
 *                   the space of the arguments its calls pass
 *   @shared         `__local`, declared at the kernel's top level
 *   globals         `__constant` (OpenCL C has no writable ones)
 *   @atomic         atomic_add, atomic_xchg, ... on int and unsigned; a
 *                   compare-and-swap loop on the bits for float (and for
 *                   double and 64-bit integers, with OpenCL's 64-bit
 *                   atomics extension)
 *   C               a struct is usable by its name (a typedef); &v.x of a
 *                   vector becomes a pointer into it; system headers are
 *                   dropped (with a note); doubles turn on cl_khr_fp64
 *   templates       a template kernel: one kernel per instance, its text
 *                   with the template's arguments in place of its
 *                   parameters (gpu.c)
 *   C++             template functions, references, lambdas, classes: an
 *                   error that names the feature (OpenCL C is C)
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "../intrinsics/intrinsics.h"

/* ---- C for OpenCL C ---------------------------------------------------------------------- */

static bool in_class(const Model *m, uint32_t at)
{
    for (size_t i = 0; i < m->nrecords; i++)
        if (m->records[i].is_class && oklc_in_range(m->records[i].range, at))
            return true;
    return false;
}

typedef struct CxxUse {
    uint32_t    at;
    const char *what;
} CxxUse;

typedef VEC(CxxUse) CxxUses;

static bool cxx_error(Emit *E, CxxUses *found, uint32_t at, const char *what)
{
    vec_push(&E->c->arena, found, ((CxxUse){at, what}));
    return false;
}

static int by_position(const void *a, const void *b)
{
    uint32_t x = ((const CxxUse *)a)->at, y = ((const CxxUse *)b)->at;
    return x < y ? -1 : x > y;
}

/* What OpenCL C does not have, each where it is. */
static bool c_only(Emit *E)
{
    const Model *m = E->m;
    bool ok = true;
    CxxUses found = {0};
    for (size_t i = 0; i < m->nkernels; i++) {
        const Kernel *k = m->kernels[i];
        for (size_t j = 0; j < k->nparams + k->nlocals; j++) {
            const Var *v = j < k->nparams ? k->params[j] : k->locals[j - k->nparams];
            if (v->type.reference)
                ok = cxx_error(E, &found, v->name_off, "a reference");
        }
    }
    for (size_t i = 0; i < m->nfunctions; i++) {
        const Function *f = m->functions[i];
        if (f->is_member)
            continue;                        /* its class is the error */
        if (f->is_template)
            ok = cxx_error(E, &found, f->name_off, "a template function");
        for (size_t j = 0; j < f->nparams + f->nlocals; j++) {
            const Var *v = j < f->nparams ? f->params[j] : f->locals[j - f->nparams];
            if (v->type.reference)
                ok = cxx_error(E, &found, v->name_off, "a reference");
        }
    }
    for (size_t i = 0; i < m->nlambdas; i++)
        ok = cxx_error(E, &found, m->lambdas[i].begin, "a lambda");
    for (size_t i = 0; i < m->nrecords; i++)
        if (m->records[i].is_class && !m->records[i].nested)
            ok = cxx_error(E, &found, m->records[i].range.begin, "a class (a struct with methods, "
                                                         "access specifiers or bases)");
    for (size_t i = 0; i < m->ncxx; i++)
        if (!in_class(m, m->cxx[i].at))
            ok = cxx_error(E, &found, m->cxx[i].at, m->cxx[i].what);
    if (found.len)
        qsort(found.data, found.len, sizeof *found.data, by_position);
    for (size_t i = 0; i < found.len; i++)
        oklc_model_error(E->c, found.data[i].at, "%s is C++: the opencl backend writes OpenCL "
                         "C 1.2, which has none", found.data[i].what);
    return ok;
}

/* What OpenCL C 1.2 forbids that C allows, each where it is. */
static bool c12_error(Emit *E, uint32_t at, const char *fmt, const char *name)
{
    oklc_model_error(E->c, at, fmt, name);
    return false;
}

static bool var_limits(Emit *E, const Var *v, bool kernel_param)
{
    bool ok = true;
    if (strstr(v->type.spelling, "(*)"))
        ok = c12_error(E, v->name_off, "OpenCL C has no function pointers ('%s')", v->name);
    else if (kernel_param && v->type.pointer && v->type.element && strchr(v->type.element, '*'))
        ok = c12_error(E, v->name_off, "an OpenCL kernel argument cannot point to a pointer "
                       "('%s'): pass one flat buffer and offsets", v->name);
    else if (kernel_param && !v->type.pointer && !v->type.array && v->type.shape &&
             v->type.shape->has_pointer)
        ok = c12_error(E, v->name_off, "an OpenCL kernel argument passed by value cannot hold "
                       "a pointer ('%s'): OpenCL C forbids it, the host's addresses mean nothing "
                       "on the device; pass each buffer as an argument of its own", v->name);
    if (v->static_)
        ok = c12_error(E, v->name_off, "OpenCL C 1.2 has no static local variables ('%s'): "
                       "make it a kernel argument or a file-scope constant", v->name);
    const char *t = E->nz->text;
    if (v->kind == VAR_LOCAL && v->type.pointer && v->init_form == '=' &&
        t[v->init.begin] == '"')
        ok = c12_error(E, v->name_off, "a string literal is in OpenCL's __constant address "
                       "space, which '%s' does not point to: use a char array", v->name);
    return ok;
}

/* The call graph of the file's functions (by index), for recursion. */
typedef struct Calls {
    const Model *m;
    size_t     **to;       /* per function: the functions it calls */
    size_t      *nto;
    char        *colour;   /* 0 unseen, 1 on the path, 2 done */
} Calls;

static size_t function_index(const Model *m, const Function *f, uint32_t name_off)
{
    for (size_t j = 0; j < m->nfunctions; j++)
        if (f ? m->functions[j] == f
              : m->functions[j]->name_off == name_off && m->functions[j]->has_body)
            return j;
    return SIZE_MAX;
}

static void call_graph(Emit *E, Calls *g)
{
    const Model *m = E->m;
    Arena *a = &E->c->arena;
    size_t n = m->nfunctions + 1;
    g->m = m;
    g->to = oklc_arena_alloc(a, n * sizeof *g->to);
    g->nto = oklc_arena_alloc(a, n * sizeof *g->nto);
    g->colour = oklc_arena_alloc(a, n);
    for (size_t i = 0; i < m->ncalls; i++) {
        const Call *c = &m->calls[i];
        size_t from = c->function ? function_index(m, c->function, 0) : SIZE_MAX;
        size_t to = c->callee_off != UINT32_MAX ? function_index(m, NULL, c->callee_off)
                                                : SIZE_MAX;
        if (from == SIZE_MAX || to == SIZE_MAX)
            continue;
        g->to[from] = oklc_arena_append(a, g->to[from], g->nto[from], sizeof(size_t));
        g->to[from][g->nto[from]++] = to;
    }
}

/* Depth first: a call to a function on the path closes a cycle. */
static bool recursion(Emit *E, Calls *g, size_t f)
{
    bool ok = true;
    g->colour[f] = 1;
    for (size_t i = 0; i < g->nto[f]; i++) {
        size_t to = g->to[f][i];
        if (g->colour[to] == 1) {
            oklc_model_error(E->c, g->m->functions[to]->name_off, "%s has no recursion: '%s' "
                             "is called again before it returns", E->be->gpu->language,
                             g->m->functions[to]->name);
            ok = false;
        }
        else if (!g->colour[to])
            ok &= recursion(E, g, to);
    }
    g->colour[f] = 2;
    return ok;
}

bool oklc_opencl_no_recursion(Emit *E)
{
    bool ok = true;
    Calls g;
    call_graph(E, &g);
    for (size_t i = 0; i < E->m->nfunctions; i++)
        if (!g.colour[i])
            ok &= recursion(E, &g, i);
    return ok;
}

static bool c12_limits(Emit *E)
{
    const Model *m = E->m;
    bool ok = oklc_opencl_no_recursion(E);
    for (size_t i = 0; i < m->nkernels; i++) {
        const Kernel *k = m->kernels[i];
        for (size_t j = 0; j < k->nparams + k->nlocals; j++)
            ok &= var_limits(E, j < k->nparams ? k->params[j] : k->locals[j - k->nparams],
                             j < k->nparams);
    }
    for (size_t i = 0; i < m->nfunctions; i++) {
        const Function *f = m->functions[i];
        if (f->is_variadic)
            ok = c12_error(E, f->name_off, "OpenCL C has no variadic functions ('%s')", f->name);
        for (size_t j = 0; j < f->nparams + f->nlocals; j++)
            ok &= var_limits(E, j < f->nparams ? f->params[j] : f->locals[j - f->nparams],
                             false);
    }
    return ok;
}

/* constexpr: an integer becomes an enumerator (a constant expression in C
 * too, for array sizes), anything else const. */
static void constexprs(Emit *E, Var *const *vars, size_t n)
{
    const char *t = E->nz->text;
    for (size_t i = 0; i < n; i++) {
        const Var *v = vars[i];
        if (!v->constexpr_ || v->type_at >= v->name_off)
            continue;
        bool wide = strstr(v->type.spelling, "long") != NULL;
        if (v->is_int && !wide && !v->type.array && v->init_form == '=' &&
            !(i + 1 < n && vars[i + 1]->type_at >= vars[i + 1]->name_off)) {
            oklc_edit_replace(&E->ed, v->range.begin, v->range.end,
                              oklc_arena_printf(&E->c->arena, "enum { %s = %s }", v->name,
                                                oklc_edits_text(&E->ed, v->init.begin,
                                                                v->init.end)));
            continue;
        }
        for (uint32_t at = v->range.begin; at + 9 <= v->name_off; at++)
            if (!strncmp(t + at, "constexpr", 9) && !oklc_ident_char(t[at + 9]) &&
                (at == 0 || !oklc_ident_char(t[at - 1]))) {
                oklc_edit_replace(&E->ed, at, at + 9, v->kind == VAR_GLOBAL ? "" : "const");
                break;
            }
    }
}

/* A constexpr function is a plain one in C (what needs it constant, a
 * launcher's sizes, computes it on the host). */
static void constexpr_functions(Emit *E)
{
    const char *t = E->nz->text;
    for (size_t i = 0; i < E->m->nfunctions; i++) {
        const Function *f = E->m->functions[i];
        for (uint32_t at = f->decl.begin; at + 9 <= f->name_off; at++)
            if (!strncmp(t + at, "constexpr", 9) && !oklc_ident_char(t[at + 9]) &&
                (at == 0 || !oklc_ident_char(t[at - 1]))) {
                oklc_edit_replace(&E->ed, at, at + 9 + (t[at + 9] == ' '), "");
                break;
            }
    }
}

/* auto x = ...: the type Clang deduced, written out. */
static void autos(Emit *E, Var *const *vars, size_t n)
{
    const char *t = E->nz->text;
    for (size_t i = 0; i < n; i++) {
        const Var *v = vars[i];
        for (uint32_t at = v->type_at; at + 4 <= v->name_off; at++) {
            if (strncmp(t + at, "auto", 4) || oklc_ident_char(t[at + 4]) ||
                (at && oklc_ident_char(t[at - 1])))
                continue;
            const char *type = v->type.pointer && memchr(t + at, '*', v->name_off - at)
                                   ? v->type.element : v->type.spelling;
            if (!strncmp(type, "const ", 6))
                type += 6;
            oklc_edit_replace(&E->ed, at, at + 4, type);
            break;
        }
    }
}

/* What is declared in the file, list by list. */
static void each_var_list(Emit *E, void (*fn)(Emit *E, Var *const *vars, size_t n))
{
    const Model *m = E->m;
    fn(E, m->globals, m->nglobals);
    for (size_t i = 0; i < m->nkernels; i++) {
        fn(E, m->kernels[i]->params, m->kernels[i]->nparams);
        fn(E, m->kernels[i]->locals, m->kernels[i]->nlocals);
    }
    for (size_t i = 0; i < m->nfunctions; i++) {
        fn(E, m->functions[i]->params, m->functions[i]->nparams);
        fn(E, m->functions[i]->locals, m->functions[i]->nlocals);
    }
}

/* std::sqrt, std::size_t: OpenCL C (and Metal) has the names without the
 * namespace. */
void oklc_opencl_drop_std(Emit *E)
{
    const char *t = E->nz->text;
    for (const char *p = strstr(t, "std::"); p; p = strstr(p + 5, "std::"))
        if (p == t || !oklc_ident_char(p[-1]))
            oklc_edit_replace(&E->ed, (uint32_t)(p - t), (uint32_t)(p - t + 5), "");
}

/* okl_memcpy_async(s[i], a[j], size[, zfill]): the prelude's takes
 * pointers (C has no references), and all four arguments. abs(x) of a
 * floating-point x, C++'s overload, is C's fabs(x). */
static void intrinsic_calls(Emit *E)
{
    for (size_t i = 0; i < E->m->ncalls; i++) {
        const Call *c = &E->m->calls[i];
        if (c->callee_off == UINT32_MAX && !strcmp(c->name, "abs") && c->nargs == 1 &&
            c->arg_floating[0] && c->name_off != UINT32_MAX)
            oklc_edit_replace(&E->ed, c->name_off, c->name_off + 3, "fabs");
        if (c->callee_off != UINT32_MAX || strcmp(c->name, "okl_memcpy_async") ||
            oklc_intrinsic_spelling(E->c, c->name))
            continue;               /* (a spelling of the user's replaces it) */
        for (size_t a = 0; a < 2 && a < c->nargs; a++)
            if (!c->arg_pointer[a]) {
                oklc_edit_before(&E->ed, c->args[a].begin, "&(");
                oklc_edit_after(&E->ed, c->args[a].end, ")");
            }
        if (c->nargs == 3)
            oklc_edit_after(&E->ed, c->args[2].end, ", 0");
    }
}

/* 2.5 * v, v / n: the scalar converts to the vector's element type, as in
 * C++; OpenCL C converts no scalar to an element type of lower rank. */
static void scalar_operands(Emit *E)
{
    for (size_t i = 0; i < E->m->nscalars; i++) {
        const ScalarOperand *s = &E->m->scalars[i];
        oklc_edit_before(&E->ed, s->range.begin,
                         oklc_arena_printf(&E->c->arena, "(%s)(", s->element));
        oklc_edit_after(&E->ed, s->range.end, ")");
    }
}

/* T(x) of a template's type parameter T, a functional cast, is ((T)(x)):
 * the instances are C once T is written in. */
static void type_param_casts(Emit *E, const Kernel *k)
{
    const char *t = E->nz->text;
    const char **names;
    size_t n = oklc_template_type_params(E->c, k, &names);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(names[i]);
        for (uint32_t p = k->decl.begin; p + len < k->decl.end; p++) {
            if (strncmp(t + p, names[i], len) || oklc_ident_char(t[p + len]) ||
                (p > 0 && oklc_ident_char(t[p - 1])))
                continue;
            uint32_t open = p + (uint32_t)len;
            while (open < k->decl.end && (t[open] == ' ' || t[open] == '\t'))
                open++;
            if (open >= k->decl.end || t[open] != '(')
                continue;
            uint32_t close = open;
            for (int depth = 0; close < k->decl.end; close++) {
                depth += t[close] == '(' ? 1 : t[close] == ')' ? -1 : 0;
                if (!depth)
                    break;
            }
            if (close >= k->decl.end)
                continue;
            oklc_edit_before(&E->ed, p, "((");
            oklc_edit_after(&E->ed, open, ")(");
            oklc_edit_delete(&E->ed, open, open + 1);
            oklc_edit_after(&E->ed, close + 1, ")");
        }
    }
}

/* Where the declaration holding a struct's definition at `at` starts: at
 * `typedef` in `typedef struct P {...} Q;`. */
static uint32_t declaration_start(Emit *E, uint32_t at)
{
    const char *t = E->nz->text;
    uint32_t p = at;
    while (p > 0 && isspace((unsigned char)t[p - 1]))
        p--;
    if (p >= 7 && !strncmp(t + p - 7, "typedef", 7) && (p == 7 || !oklc_ident_char(t[p - 8])))
        return p - 7;
    return at;
}

/* struct P {...}; then P p; - C names it `struct P` unless a typedef
 * says otherwise. */
static void struct_names(Emit *E)
{
    const Model *m = E->m;
    for (size_t i = 0; i < m->nrecords; i++) {
        const Record *r = &m->records[i];
        bool named = r->nested || !r->name[0];
        for (size_t j = 0; j < m->ntype_names && !named; j++)
            named = !strcmp(m->type_names[j], r->name);
        if (!named)
            oklc_edit_before(&E->ed, declaration_start(E, r->range.begin),
                             oklc_arena_printf(&E->c->arena, "typedef struct %s %s;\n", r->name,
                                               r->name));
    }
}

/* #include <...>: OpenCL C has no system headers (its builtins need none);
 * Metal has only its own. */
static void drop_include(Edits *ed, Range line, const char *args, void *data)
{
    Emit *E = data;
    const char *p = args;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p != '<' || strstr(p, "<okl_intrinsic.h>"))
        return;
    const char *end = strchr(p, '>');
    size_t n = end ? (size_t)(end - p + 1) : strlen(p);
    oklc_model_diag(E->c, DIAG_NOTE, line.begin, "'#include %.*s' dropped: %s has no "
                    "system headers, and its built-in functions need none", (int)n, p,
                    E->be->gpu->language);
    oklc_edit_replace(ed, line.begin, line.end,
                      oklc_arena_printf(&E->c->arena, "/* #include %.*s: dropped */", (int)n, p));
}

/* bool and size_t have no fixed size in OpenCL C: a kernel cannot take
 * them. The host passes a byte and 64 bits. */
static void kernel_argument_types(Emit *E)
{
    static const struct {
        const char *from, *to;
    } types[] = {{"bool", "char"}, {"size_t", "ulong"}, {"ptrdiff_t", "long"},
                 {"intptr_t", "long"}, {"uintptr_t", "ulong"}};
    const char *t = E->nz->text;
    for (size_t i = 0; i < E->m->nkernels; i++) {
        const Kernel *k = E->m->kernels[i];
        for (size_t p = 0; p < k->nparams; p++) {
            const Var *v = k->params[p];
            if (v->type.pointer || v->type.array)
                continue;
            for (uint32_t at = v->type_at; at < v->name_off; at++) {
                if (at > 0 && oklc_ident_char(t[at - 1]))
                    continue;
                for (size_t j = 0; j < OKLC_COUNTOF(types); j++) {
                    size_t n = strlen(types[j].from);
                    if (!strncmp(t + at, types[j].from, n) && !oklc_ident_char(t[at + n]))
                        oklc_edit_replace(&E->ed, at, at + (uint32_t)n, types[j].to);
                }
            }
        }
    }
}

/* OpenCL C's keywords that are names in C++: a variable so named is
 * renamed. */
static const char *const keywords[] = {
    "global", "local", "constant", "private", "kernel", "read_only", "write_only",
    "read_write", "half", "image1d_t", "image2d_t", "image3d_t", "sampler_t", "event_t",
};


void oklc_opencl_drop_includes(Emit *E)
{
    oklc_edits_directives(&E->ed, "include", drop_include, E);
}

/* What OpenCL C needs the file to be; the address spaces last, since a
 * function written once per combination of spaces is rebuilt from the text
 * of its parts (opencl_spaces.c). */
static bool prepare(Emit *E)
{
    if (!c_only(E) || !c12_limits(E))
        return false;
    struct_names(E);
    oklc_emit_rename_keywords(E, keywords, OKLC_COUNTOF(keywords));
    each_var_list(E, constexprs);
    constexpr_functions(E);
    each_var_list(E, autos);
    oklc_opencl_drop_std(E);
    intrinsic_calls(E);
    scalar_operands(E);
    kernel_argument_types(E);
    for (size_t i = 0; i < E->m->nkernels; i++)
        if (E->m->kernels[i]->is_template)
            type_param_casts(E, E->m->kernels[i]);
    oklc_opencl_drop_includes(E);
    if (E->m->uses_double || oklc_instances_name(E->kernels.data, E->kernels.len, "double"))
        oklc_buf_puts(&E->head, "#define OKLC_PRELUDE_FP64 1\n");
    return oklc_gpu_spaces(E);
}

/* OpenCL C's built-in functions (1.2: math, integer, common, geometric,
 * relational, vector data, synchronization): a function of the file with
 * one of these names is renamed, since the built-in cannot be redefined. */
bool oklc_opencl_builtin(const char *name)
{
    static const char *const names[] = {
        "acos", "acosh", "acospi", "asin", "asinh", "asinpi", "atan", "atan2", "atanh",
        "atanpi", "atan2pi", "cbrt", "ceil", "copysign", "cos", "cosh", "cospi", "erfc", "erf",
        "exp", "exp2", "exp10", "expm1", "fabs", "fdim", "floor", "fma", "fmax", "fmin", "fmod",
        "fract", "frexp", "hypot", "ilogb", "ldexp", "lgamma", "lgamma_r", "log", "log2",
        "log10", "log1p", "logb", "mad", "maxmag", "minmag", "modf", "nan", "nextafter", "pow",
        "pown", "powr", "remainder", "remquo", "rint", "rootn", "round", "rsqrt", "sin",
        "sincos", "sinh", "sinpi", "sqrt", "tan", "tanh", "tanpi", "tgamma", "trunc", "abs",
        "abs_diff", "add_sat", "hadd", "rhadd", "clz", "mad_hi", "mad_sat", "mul_hi", "rotate",
        "sub_sat", "upsample", "popcount", "mad24", "mul24", "clamp", "degrees", "max", "min",
        "mix", "radians", "step", "smoothstep", "sign", "cross", "dot", "distance", "length",
        "normalize", "fast_distance", "fast_length", "fast_normalize", "isequal",
        "isnotequal", "isgreater", "isgreaterequal", "isless", "islessequal",
        "islessgreater", "isfinite", "isinf", "isnan", "isnormal", "isordered",
        "isunordered", "signbit", "any", "all", "bitselect", "select", "shuffle", "shuffle2",
        "barrier", "mem_fence", "read_mem_fence", "write_mem_fence", "async_work_group_copy",
        "wait_group_events", "prefetch", "printf", "get_global_id", "get_local_id",
        "get_group_id", "get_global_size", "get_local_size", "get_num_groups",
        "get_work_dim", "get_global_offset",
    };
    for (size_t i = 0; i < OKLC_COUNTOF(names); i++)
        if (!strcmp(name, names[i]))
            return true;
    return false;
}

/* ---- launch hints, atomics --------------------------------------------------------------------- */

static const char *launch_hint(Arena *a, const int64_t block[3])
{
    return oklc_arena_printf(a, "__attribute__((reqd_work_group_size(%lld, %lld, %lld)))",
                             (long long)block[0], (long long)block[1], (long long)block[2]);
}

static const char *unroll(Arena *a, const char *count)
{
    return *count ? oklc_arena_printf(a, "__attribute__((opencl_unroll_hint(%s)))", count)
                  : "__attribute__((opencl_unroll_hint))";
}

/* The space of what an @atomic writes (a thread's own memory needs no
 * atomics, so: __global or __local). */
static const char *atomic_space(Gpu *G, const Atomic *at)
{
    const char *s = oklc_gpu_space(G->E, G->k, at->lhs);
    return s ? s : "__global";
}

/* The atomic function of a 32-bit integer operation, or NULL. */
static const char *int_function(AtomicOp op)
{
    switch (op) {
    case AT_ADD: case AT_INC: return "atomic_add";
    case AT_SUB: case AT_DEC: return "atomic_sub";
    case AT_AND: return "atomic_and";
    case AT_OR: return "atomic_or";
    case AT_XOR: return "atomic_xor";
    case AT_ASSIGN: return "atomic_xchg";
    case AT_MIN: return "atomic_min";
    case AT_MAX: return "atomic_max";
    default: return NULL;
    }
}

static const CasSpelling opencl_cas = {
    {"uint", "ulong"},
    {"as_uint", "as_ulong"},
    {"as_float", "as_double"},
    {"atomic_cmpxchg", "atom_cmpxchg"},
};

/* OpenCL C 1.2 has atomic functions on 32-bit integers (and exchange on
 * float); the rest is a compare-and-swap loop on x's bits, 64-bit ones
 * with the cl_khr_int64_base_atomics extension. */
static const char *opencl_atomic(Gpu *G, const Atomic *at)
{
    const char *type = at->is_float ? (at->size == 4 ? "float" : at->size == 8 ? "double" : NULL)
                       : at->size == 4 ? (at->is_signed ? "int" : "uint")
                       : at->size == 8 ? (at->is_signed ? "long" : "ulong") : NULL;
    if (!at->scalar || !type) {
        oklc_gpu_error(G, at->stmt.begin, "@atomic on a value of type '%s': OpenCL has atomics "
                       "for 4- and 8-byte integers and floating point only",
                       at->type ? at->type : "");
        return NULL;
    }
    const char *x = oklc_edits_text(&G->E->ed, at->lhs.begin, at->lhs.end);
    const char *v = at->rhs.end > at->rhs.begin
                        ? oklc_edits_text(&G->E->ed, at->rhs.begin, at->rhs.end) : "1";
    const char *space = atomic_space(G, at);
    const char *fn = int_function(at->op);
    bool wide = at->size == 8;
    if (fn && !wide && (!at->is_float || at->op == AT_ASSIGN))
        return oklc_arena_printf(G->a, "%s((volatile %s %s *)&(%s), (%s)(%s))", fn, space, type,
                                 x, type, v);
    if (wide && !strstr(G->E->head.data ? G->E->head.data : "", "int64_base_atomics"))
        oklc_buf_puts(&G->E->head, "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : "
                                   "enable\n");
    return oklc_gpu_cas_loop(G, at, &opencl_cas,
                             oklc_arena_printf(G->a, "volatile %s ", space), type, x, v);
}

static const GpuTarget opencl = {
    .kernel_specs = "__kernel",
    .device_specs = NULL,
    .shared = "__local",
    .shared_on_top = true,
    .block_index = {"get_group_id(0)", "get_group_id(1)", "get_group_id(2)"},
    .thread_index = {"get_local_id(0)", "get_local_id(1)", "get_local_id(2)"},
    .barrier = "barrier(CLK_LOCAL_MEM_FENCE);",
    .warp_barrier = "barrier(CLK_LOCAL_MEM_FENCE);",
    .constant_var = "__constant",
    .global_var = NULL,
    .unroll = unroll,
    .launch_hint = launch_hint,
    .fault_param = "__global int *_occa_faults",
    .size_hint = "__attribute__((work_group_size_hint(%lld, %lld, %lld)))",
    .vec_hint = "__attribute__((vec_type_hint(%s)))",
    .atomic = opencl_atomic,
    .prepare = prepare,
    .copy_instances = true,
    .spaces = {"", "__private", "__global", "__local", "__constant"},
    .language = "OpenCL C",
    .builtin = oklc_opencl_builtin,
};

const Backend oklc_opencl_backend = {
    .name = "opencl",
    .id = OKLC_BACKEND_OPENCL,
    .macro = "OPENCL",
    .restrict_kw = "restrict",
    .preamble = oklc_opencl_prelude,
    .gpu = &opencl,
    .translate = oklc_gpu_translate,
};
