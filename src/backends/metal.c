/*
 * metal.c - the Metal backend: Metal Shading Language 2.4 (C++14 with
 * address spaces). Device kernels are `kernel void` functions whose blocks
 * and threads are threadgroups and their threads (gpu.c); what Metal adds:
 *
 *   parameters      each a buffer, [[buffer(i)]] with i the parameter's
 *                   index: pointers `device T *`, scalars `constant T &`
 *                   (one the kernel may change, not const, is copied:
 *                   `T n = _occa_arg_n;`); the block's and the thread's
 *                   position are uint3 parameters
 *   address spaces  on every pointer and reference (opencl_spaces.c, with
 *                   Metal's names: device, threadgroup, constant, thread)
 *   @shared         `threadgroup`, at the kernel's top level
 *   @atomic         atomic_fetch_add_explicit, ... (memory_order_relaxed)
 *                   on int and uint; float += and -=: atomic_float in
 *                   device memory from Metal 3 on (the prelude's
 *                   _occa_atomic_add); a compare-and-swap loop for the
 *                   rest (float on its bits, as atomic_uint)
 *   templates       a template kernel is a template function taking the
 *                   @shared arrays by reference; each instance a kernel
 *                   that declares them and calls it
 *   return          in an @outer or @inner loop: `continue` of a
 *                   do { } while (0) around the body (Metal has no goto)
 *   errors          what Metal has not: double, lambdas, recursion, goto,
 *                   function pointers, new and delete, static locals,
 *                   writable globals, atomics of other sizes
 */
#include <string.h>

#include "backend.h"

/* ---- what Metal has not --------------------------------------------------------------- */

static bool word_at(const char *t, size_t at, size_t len, const char *w)
{
    size_t n = strlen(w);
    return at + n <= len && !strncmp(t + at, w, n) && (at == 0 || !oklc_ident_char(t[at - 1])) &&
           (at + n == len || !oklc_ident_char(t[at + n]));
}

/* Each `double` (doubleN, long double) and `goto` of the code, outside
 * comments, literals and directives: one error per line and word. */
static bool words(Emit *E)
{
    const char *t = E->nz->text;
    size_t len = E->nz->len;
    bool ok = true;
    unsigned goto_line = 0;
    uint32_t first_double = UINT32_MAX;
    size_t more_doubles = 0;
    for (size_t p = 0; p < len;) {
        if (t[p] == '/' && p + 1 < len && t[p + 1] == '/') {
            while (p < len && t[p] != '\n')
                p++;
        } else if (t[p] == '/' && p + 1 < len && t[p + 1] == '*') {
            const char *e = strstr(t + p + 2, "*/");
            p = e ? (size_t)(e - t) + 2 : len;
        } else if (t[p] == '"' || t[p] == '\'') {
            char q = t[p++];
            while (p < len && t[p] != q && t[p] != '\n')
                p += t[p] == '\\' ? 2 : 1;
            p++;
        } else if (t[p] == '#' && (p == 0 || t[p - 1] == '\n' || t[p - 1] == ' ')) {
            while (p < len && t[p] != '\n')
                p += t[p] == '\\' ? 2 : 1;
        } else if (oklc_ident_char(t[p])) {
            size_t b = p;
            while (p < len && oklc_ident_char(t[p]))
                p++;
            bool dbl = word_at(t, b, len, "double") || word_at(t, b, len, "double2") ||
                       word_at(t, b, len, "double3") || word_at(t, b, len, "double4");
            if (dbl) {
                if (first_double == UINT32_MAX)
                    first_double = (uint32_t)b;
                else
                    more_doubles++;
            } else if (word_at(t, b, len, "goto")) {
                unsigned line = oklc_model_line(E->c, (uint32_t)b);
                if (line != goto_line)
                    oklc_model_error(E->c, (uint32_t)b, "Metal has no goto: write the jump as "
                                     "a loop or an if");
                goto_line = line;
                ok = false;
            }
        } else {
            p++;
        }
    }
    if (first_double != UINT32_MAX) {
        /* (one message: a kernel written in double has it everywhere) */
        if (more_doubles)
            oklc_model_error(E->c, first_double, "Metal has no double (64-bit floating "
                             "point): use float (this file names double %zu more time%s)",
                             more_doubles, more_doubles > 1 ? "s" : "");
        else
            oklc_model_error(E->c, first_double, "Metal has no double (64-bit floating "
                             "point): use float");
        ok = false;
    }
    return ok;
}

enum { METAL_MAX_BUFFERS = 31 };    /* the argument table's buffer slots (MSL spec) */

static bool var_limits(Emit *E, const Var *v, bool kernel_param)
{
    bool ok = true;
    if (strstr(v->type.spelling, "(*)") || strstr(v->type.spelling, "(&)")) {
        oklc_model_error(E->c, v->name_off, "Metal has no function pointers ('%s')", v->name);
        ok = false;
    } else if (kernel_param && v->type.pointer && v->type.element && strchr(v->type.element, '*')) {
        oklc_model_error(E->c, v->name_off, "a Metal kernel argument cannot point to a pointer "
                         "('%s'): pass one flat buffer and offsets", v->name);
        ok = false;
    } else if (kernel_param && v->type.reference) {
        oklc_model_error(E->c, v->name_off, "a Metal kernel argument cannot be a reference "
                         "('%s'): pass it by value, or a pointer", v->name);
        ok = false;
    }
    if (v->static_ && !v->type.is_const && !v->constexpr_) {
        oklc_model_error(E->c, v->name_off, "Metal has no writable static local variables "
                         "('%s'): make it a kernel argument or a file-scope constant", v->name);
        ok = false;
    }
    return ok;
}

/* Does a loop of k report to the runtime (gpu.c fault_check)? Its device
 * kernels then take one buffer more. */
static bool has_faults(const Kernel *k)
{
    for (size_t o = 0; o < k->nouters; o++)
        for (size_t j = 0; j < k->nloops; j++)
            if (oklc_emit_device_checked(k, k->outers[o], k->loops[j]))
                return true;
    return false;
}

static bool limits(Emit *E)
{
    const Model *m = E->m;
    bool ok = words(E);
    for (size_t i = 0; i < E->kernels.len; i++) {       /* an instance scale<double> */
        const KernelOut *ko = &E->kernels.data[i];
        for (size_t t = 0; t < ko->ntargs; t++) {
            if (oklc_names(ko->targs[t], "double")) {
                oklc_model_error(E->c, ko->kernel->name_off, "Metal has no double (64-bit "
                                 "floating point): the instance with %s of '%s' uses it",
                                 ko->targs[t], ko->kernel->name);
                ok = false;
            }
        }
    }
    for (size_t i = 0; i < m->nlambdas; i++) {
        oklc_model_error(E->c, m->lambdas[i].begin, "Metal has no lambda expressions: write a "
                         "function");
        ok = false;
    }
    for (size_t i = 0; i < m->nrecords; i++)
        if (m->records[i].is_class && !m->records[i].nested) {
            oklc_model_error(E->c, m->records[i].range.begin, "a class (a struct with methods, "
                             "access specifiers or bases): the metal backend does not write "
                             "them (Metal has no derived classes, and a method takes the "
                             "address space of its object); use a struct and functions");
            ok = false;
        }
    for (size_t i = 0; i < m->ncxx; i++)
        if (!strcmp(m->cxx[i].what, "new") || !strcmp(m->cxx[i].what, "delete")) {
            oklc_model_error(E->c, m->cxx[i].at, "Metal has no %s (no dynamic memory)",
                             m->cxx[i].what);
            ok = false;
        }
    for (size_t i = 0; i < m->nkernels; i++) {
        const Kernel *k = m->kernels[i];
        size_t most = METAL_MAX_BUFFERS - has_faults(k);    /* each argument is a buffer */
        if (k->nparams > most) {
            oklc_model_error(E->c, k->params[most]->name_off, "Metal binds at most %d buffers to "
                             "a kernel ([[buffer(0)]] to [[buffer(%d)]]), one per argument%s, "
                             "and '%s' has %zu arguments: pass scalars together in a struct",
                             METAL_MAX_BUFFERS, METAL_MAX_BUFFERS - 1,
                             most < METAL_MAX_BUFFERS ? " and one for what its @inner loops "
                                                        "report (docs/launchers.md)" : "",
                             k->name, k->nparams);
            ok = false;
        }
        for (size_t j = 0; j < k->nparams + k->nlocals; j++)
            ok &= var_limits(E, j < k->nparams ? k->params[j] : k->locals[j - k->nparams],
                             j < k->nparams);
    }
    for (size_t i = 0; i < m->nfunctions; i++) {
        const Function *f = m->functions[i];
        for (size_t j = 0; j < f->nparams + f->nlocals; j++)
            ok &= var_limits(E, j < f->nparams ? f->params[j] : f->locals[j - f->nparams], false);
    }
    return oklc_opencl_no_recursion(E) && ok;
}

/* A kernel's prototype (its body elsewhere) goes: the device code has the
 * device kernels, and a declaration's pointers would have no space. */
static void kernel_protos(Emit *E)
{
    const char *t = E->nz->text;
    for (size_t i = 0; i < E->m->nkernel_protos; i++) {
        uint32_t b = E->m->kernel_protos[i], p = b;
        int depth = 0;
        while (p < E->nz->len && !(depth == 0 && t[p] == ';')) {
            depth += t[p] == '(' ? 1 : t[p] == ')' ? -1 : 0;
            p++;
        }
        oklc_emit_delete_stmt(E, b, p + 1);
    }
}

/* A const reference parameter of a function becomes a value: Metal would
 * want one function per space of the argument, and an rvalue (a + 1)
 * binds only to a thread reference. The value reads the same. */
static void const_references(Emit *E)
{
    const char *t = E->nz->text;
    for (size_t i = 0; i < E->m->nfunctions; i++) {
        const Function *f = E->m->functions[i];
        for (size_t j = 0; j < f->nparams; j++) {
            Var *v = f->params[j];
            if (!v->type.reference || !v->type.element_const || v->type.array)
                continue;
            for (uint32_t at = v->name_off; at > v->type_at; at--)
                if (t[at - 1] == '&') {
                    oklc_edit_delete(&E->ed, at - 1, at);
                    v->type.reference = false;    /* (no space for it) */
                    break;
                }
        }
    }
}

/* Metal's keywords and type names that are names in C++ (and OpenCL's,
 * which the checking compiler reserves, tests/backends/check/metal): a
 * variable so named is renamed. */
static const char *const keywords[] = {
    "device", "constant", "thread", "threadgroup", "threadgroup_imageblock", "kernel",
    "vertex", "fragment", "half", "bfloat", "sampler", "texture", "patch", "visible",
    "global", "local", "private", "read_only", "write_only", "read_write",
};

/* A constexpr global is in constant memory too: Metal's file-scope
 * variables all are (gpu.c writes the other constant ones). */
static void constexpr_globals(Emit *E)
{
    for (size_t i = 0; i < E->m->nglobals; i++) {
        const Var *v = E->m->globals[i];
        if (v->constexpr_ && !v->type.array && v->type_at < v->name_off)
            oklc_edit_before(&E->ed, v->type_at, "constant ");
    }
}

/* The functions of the Metal Standard Library that a kernel's own
 * function might be named like (dot, length, ...): it is renamed, since a
 * call would be ambiguous with `using namespace metal`. */
static bool metal_builtin(const char *name)
{
    static const char *const names[] = {
        "abs", "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "clamp",
        "copysign", "cos", "cosh", "cospi", "cross", "distance", "dot", "exp", "exp10", "exp2",
        "fabs", "fdim", "floor", "fma", "fmax", "fmin", "fmod", "fract", "length", "log",
        "log10", "log2", "max", "min", "mix", "normalize", "pow", "powr", "rint", "round",
        "rsqrt", "saturate", "sign", "sin", "sinh", "sinpi", "sqrt", "step", "tan", "tanh",
        "trunc", "popcount", "clz", "ctz", "select", "any", "all", "isnan", "isinf",
        "isfinite", "signbit", "as_type", "threadgroup_barrier", "simdgroup_barrier",
    };
    for (size_t i = 0; i < OKLC_COUNTOF(names); i++)
        if (!strcmp(name, names[i]))
            return true;
    return false;
}

static bool prepare(Emit *E)
{
    if (!limits(E))
        return false;
    oklc_emit_rename_keywords(E, keywords, OKLC_COUNTOF(keywords));
    constexpr_globals(E);
    kernel_protos(E);
    const_references(E);
    oklc_opencl_drop_std(E);
    oklc_opencl_drop_includes(E);
    return oklc_gpu_spaces(E);
}

/* ---- device kernels ------------------------------------------------------------------- */

static bool is_shared(const Var *v)
{
    return v->shared || (v->typedef_var && v->typedef_var->shared);
}

static const char *without_const(const char *type)
{
    return strncmp(type, "const ", 6) ? type : type + 6;
}

/* A parameter's type as edited (its space written, std:: dropped), for
 * instance ko (or as written): "device const float *", "const int". */
static const char *param_type(Gpu *G, const Var *v, const KernelOut *ko)
{
    const char *t = oklc_edits_text(&G->E->ed, v->type_at, v->name_off);
    size_t n = strlen(t);
    while (n && (t[n - 1] == ' ' || t[n - 1] == '\t'))
        n--;
    t = oklc_arena_printf(G->a, "%.*s%s", (int)n, t, v->type.array ? " *" : "");
    return ko ? oklc_subst_targs(G->E->c, G->k, t, ko->targs, ko->ntargs) : t;
}

/* The kernel's parameters as Metal's buffers (of instance ko, or as
 * written), then the positions; the copies of the scalars it may change
 * go to `copies`. */
static const char *buffers(Gpu *G, const KernelOut *ko, Buf *copies)
{
    const Kernel *k = G->k;
    Buf b;
    oklc_buf_init(&b, G->a);
    for (size_t i = 0; i < k->nparams; i++) {
        const Var *v = k->params[i];
        const char *type = param_type(G, v, ko);
        bool ptr = v->type.pointer || v->type.array;
        const char *sep = type[strlen(type) - 1] == '*' ? "" : " ";
        if (ptr)
            oklc_buf_printf(&b, "%s%s%s", type, sep, v->name);
        else if (v->type.is_const)
            oklc_buf_printf(&b, "constant %s &%s", without_const(type), v->name);
        else {
            oklc_buf_printf(&b, "constant %s &_occa_arg_%s", type, v->name);
            if (copies)
                oklc_buf_printf(copies, "  %s %s = _occa_arg_%s;\n", type, v->name, v->name);
        }
        oklc_buf_printf(&b, " [[buffer(%zu)]],\n    ", i);
    }
    if (G->faults.len)
        oklc_buf_printf(&b, "%s [[buffer(%zu)]],\n    ", G->T->fault_param, k->nparams);
    oklc_buf_puts(&b, "uint3 _occa_group [[threadgroup_position_in_grid]],\n"
                      "    uint3 _occa_thread [[thread_position_in_threadgroup]]");
    return b.data;
}

/* A template kernel's body: a template function with the kernel's
 * parameters (scalars by value), its @shared arrays by reference (Metal
 * declares threadgroup memory in kernels only) and the positions. */
static const char *body_params(Gpu *G, const DeviceKernel *d)
{
    const Kernel *k = G->k;
    Buf b;
    oklc_buf_init(&b, G->a);
    oklc_buf_printf(&b, "%.*s, ", (int)strlen(d->params) - 2, d->params + 1);
    const char *type = NULL;
    for (size_t i = 0; i < k->nlocals; i++) {
        const Var *v = k->locals[i];
        if (!is_shared(v))
            continue;
        if (v->type_at < v->name_off)
            type = oklc_edits_text(&G->E->ed, v->type_at, v->name_off);
        size_t n = strlen(v->name);
        oklc_buf_printf(&b, "threadgroup %s(&%s)%s, ", type, v->name,
                        oklc_edits_text(&G->E->ed, v->name_off + (uint32_t)n, v->declarator_end));
    }
    oklc_buf_puts(&b, "uint3 _occa_group, uint3 _occa_thread");
    return b.data;
}

/* The arguments of the body's call. */
static const char *body_args(Gpu *G)
{
    const Kernel *k = G->k;
    Buf b;
    oklc_buf_init(&b, G->a);
    for (size_t i = 0; i < k->nparams; i++) {
        const Var *v = k->params[i];
        bool copy = !(v->type.pointer || v->type.array) && !v->type.is_const;
        oklc_buf_printf(&b, "%s%s, ", copy ? "_occa_arg_" : "", v->name);
    }
    if (G->faults.len)
        oklc_buf_puts(&b, "_occa_faults, ");
    for (size_t i = 0; i < k->nlocals; i++)
        if (is_shared(k->locals[i]))
            oklc_buf_printf(&b, "%s, ", k->locals[i]->name);
    oklc_buf_puts(&b, "_occa_group, _occa_thread");
    return b.data;
}

static const char *device_kernel(Gpu *G, const DeviceKernel *d)
{
    const Kernel *k = G->k;
    Buf b;
    oklc_buf_init(&b, G->a);
    if (!k->is_template) {
        Buf copies;
        oklc_buf_init(&copies, G->a);
        oklc_buf_puts(&copies, "");
        const char *params = buffers(G, NULL, &copies);
        oklc_buf_printf(&b, "%s%skernel void %s(%s)\n{\n%s%s%s}\n", d->hint ? d->hint : "",
                        d->hint ? "\n" : "", d->name, params, copies.data, d->top, d->body);
        return b.data;
    }
    oklc_buf_printf(&b, "template <%s>\nvoid %s_body(%s)\n{\n%s}\n", k->template_params, d->name,
                    body_params(G, d), d->body);
    for (size_t i = 0; i < G->E->kernels.len; i++) {
        const KernelOut *ko = &G->E->kernels.data[i];
        if (ko->kernel != k)
            continue;
        oklc_buf_printf(&b, "kernel void %s%s(%s)\n{\n%s  %s_body%s(%s);\n}\n", d->name,
                        ko->suffix, buffers(G, ko, NULL),
                        oklc_subst_targs(G->E->c, k, d->top, ko->targs, ko->ntargs), d->name,
                        oklc_gpu_targs(G, ko), body_args(G));
    }
    return b.data;
}

static const char *launch_hint(Arena *a, const int64_t block[3])
{
    return oklc_arena_printf(a, "[[max_total_threads_per_threadgroup(%lld)]]",
                             (long long)(block[0] * block[1] * block[2]));
}

/* ---- atomics ---------------------------------------------------------------------------- */

/* Metal's atomic functions (memory_order_relaxed) on atomic_int and
 * atomic_uint, and float additions through the prelude (atomic_float where
 * Metal has it); other updates, and floats (on their bits, as
 * atomic_uint), through atomic_compare_exchange_weak_explicit. */
static const char *metal_atomic(Gpu *G, const Atomic *at)
{
    const char *type = at->size != 4 ? NULL
                       : at->is_float ? "float" : at->is_signed ? "int" : "uint";
    if (!at->scalar || !type) {
        oklc_gpu_error(G, at->stmt.begin, "@atomic on a value of type '%s': Metal has atomics "
                       "for 4-byte integers and floats only (atomic_int, atomic_uint; float "
                       "through atomic_uint)",
                       at->type ? at->type : "");
        return NULL;
    }
    const char *x = oklc_edits_text(&G->E->ed, at->lhs.begin, at->lhs.end);
    const char *v = at->rhs.end > at->rhs.begin
                        ? oklc_edits_text(&G->E->ed, at->rhs.begin, at->rhs.end) : "1";
    const char *space = oklc_gpu_space(G->E, G->k, at->lhs);
    if (!space || !strcmp(space, "constant"))
        space = "device";
    bool f = at->is_float;
    const char *atype = f || !at->is_signed ? "atomic_uint" : "atomic_int";
    const char *fn = NULL;
    switch (at->op) {
    case AT_ADD: case AT_INC: fn = "atomic_fetch_add_explicit"; break;
    case AT_SUB: case AT_DEC: fn = "atomic_fetch_sub_explicit"; break;
    case AT_AND: fn = "atomic_fetch_and_explicit"; break;
    case AT_OR: fn = "atomic_fetch_or_explicit"; break;
    case AT_XOR: fn = "atomic_fetch_xor_explicit"; break;
    case AT_ASSIGN: fn = "atomic_exchange_explicit"; break;
    case AT_MIN: fn = "atomic_fetch_min_explicit"; break;
    case AT_MAX: fn = "atomic_fetch_max_explicit"; break;
    default: break;
    }
    if (fn && !f)
        return oklc_arena_printf(G->a, "%s((%s %s *)&(%s), (%s)(%s), memory_order_relaxed)", fn,
                                 space, atype, x, type, v);
    if (f && at->op == AT_ASSIGN)
        return oklc_arena_printf(G->a, "atomic_exchange_explicit((%s atomic_uint *)&(%s), "
                                 "as_type<uint>((float)(%s)), memory_order_relaxed)",
                                 space, x, v);
    if (f && (at->op == AT_ADD || at->op == AT_INC || at->op == AT_SUB || at->op == AT_DEC))
        return oklc_arena_printf(G->a, "_occa_atomic_add((%s float *)&(%s), %s(float)(%s))",
                                 space, x, at->op == AT_SUB || at->op == AT_DEC ? "-" : "", v);
    const char *update = oklc_atomic_update(G->a, at, "_occa_v", type, "_occa_rhs");
    if (!update) {
        oklc_gpu_atomic_form_error(G, at);
        return NULL;
    }
    const char *bits = f ? "uint" : type;
    return oklc_arena_printf(G->a,
        "{ %s%s %s *_occa_p = (%s %s *)&(%s); %s _occa_old = "
        "atomic_load_explicit(_occa_p, memory_order_relaxed); %s _occa_v; do { _occa_v = "
        "%s(_occa_old); } while (!atomic_compare_exchange_weak_explicit(_occa_p, &_occa_old, "
        "%s(%s), memory_order_relaxed, memory_order_relaxed)); }",
        oklc_atomic_rhs(G->a, type, v), space, atype, space, atype, x, bits, type,
        f ? "as_type<float>" : "",
        f ? "as_type<uint>" : oklc_arena_printf(G->a, "(%s)", type), update);
}

static const GpuTarget metal = {
    .kernel_specs = "kernel",
    .device_specs = NULL,
    .shared = "threadgroup",
    .shared_on_top = true,
    .block_index = {"_occa_group.x", "_occa_group.y", "_occa_group.z"},
    .thread_index = {"_occa_thread.x", "_occa_thread.y", "_occa_thread.z"},
    .barrier = "threadgroup_barrier(mem_flags::mem_threadgroup);",
    .warp_barrier = "simdgroup_barrier(mem_flags::mem_threadgroup);",
    .constant_var = "constant",
    .global_var = NULL,
    .unroll = oklc_cuda_unroll,
    .launch_hint = launch_hint,
    .fault_param = "device int *_occa_faults",
    .no_packed = true,
    .max_block = 1024,
    .atomic = metal_atomic,
    .prepare = prepare,
    .device_kernel = device_kernel,
    .spaces = {"", "thread", "device", "threadgroup", "constant"},
    .private_space = true,
    .struct_assign = "_occa_assign",
    .language = "Metal",
    .builtin = metal_builtin,
    .no_goto = true,
};

const Backend oklc_metal_backend = {
    .name = "metal",
    .id = OKLC_BACKEND_METAL,
    .macro = "METAL",
    .restrict_kw = "",
    .preamble = oklc_metal_prelude,
    .gpu = &metal,
    .translate = oklc_gpu_translate,
};
