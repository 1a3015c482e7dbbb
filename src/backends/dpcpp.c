/*
 * dpcpp.c - the DPC++ backend: SYCL 2020, as Intel's icpx -fsycl and
 * AdaptiveCpp compile it. Each top-level @outer loop becomes
 *
 *   static void _occa_K_0_item(const sycl::nd_item<3> &_occa_item, locals, params)
 *                  the nest, for one work-item (gpu.c's mapping: blocks are
 *                  work-groups, threads work-items; OKL axis n is SYCL
 *                  dimension 2 - n, SYCL's last dimension being the fastest)
 *   static void _occa_K_0_body(sycl::queue *_occa_queue, sycl::nd_range<3> *_occa_range,
 *                              params)
 *                  submits a parallel_for over the nd-range whose kernel
 *                  calls _occa_K_0_item
 *   extern "C" void _occa_K_0(queue, range, params by reference)
 *                  calls _occa_K_0_body: the host function OCCA's DPC++
 *                  mode calls (as legacy OCCA's), with each argument's
 *                  address
 *   extern "C" const char *_occa_K_0_run(queue, grid, block, args)
 *                  the runtime's entry: the nd-range from the launcher's
 *                  grid and block, the arguments from args[i]; an exception
 *                  becomes its message
 *
 * The nest is a function of its own so that it may change its parameters,
 * as C++ lets a function do (a kernel lambda's captures are const).
 *
 *   @shared     work-group local memory: a sycl::local_accessor, made by
 *               the submitting function (its size is known there: the
 *               variable's sizeof), and in the nest a reference of the
 *               declared type to it
 *   @barrier    sycl::group_barrier on the work-group (the sub-group for
 *               @barrier("warp"))
 *   @atomic     sycl::atomic_ref, relaxed: work-group scope in local memory
 *               (@shared), device scope in global memory (the kernel's
 *               arguments) or wherever else a pointer points (generic);
 *               a compare-and-swap loop where it has no operation
 *   globals     const ones as written (SYCL reads constant-initialized
 *               ones in device code); writable ones are an error
 * Functions stay plain C++: SYCL compiles what a kernel calls for the device.
 */
#include <string.h>

#include "backend.h"
#include "../intrinsics/intrinsics.h"

static const char *launch_hint(Arena *a, const int64_t block[3])
{
    return oklc_arena_printf(a, "[[sycl::reqd_work_group_size(%lld, %lld, %lld)]]",
                             (long long)block[2], (long long)block[1], (long long)block[0]);
}

/* The kernel's attributes: the work-group size when it is known, and
 * @simd_length(N) as the sub-group size it requires (the design's
 * Appendix B). */
static const char *hint(Gpu *G, const DeviceKernel *d)
{
    const Attr *simd = d->nest->simd_length;
    if (!simd)
        return d->hint ? d->hint : "";
    return oklc_arena_printf(G->a, "%s%s[[intel::reqd_sub_group_size(%s)]]",
                             d->hint ? d->hint : "", d->hint ? " " : "", simd->args[0].text);
}

/* ---- @shared ------------------------------------------------------------------------- */

static bool is_shared(const Var *v)
{
    return v->shared || (v->typedef_var && v->typedef_var->shared);
}

/* The accessor of a @shared variable: named by its place among the
 * kernel's locals (two nests may each have an `s`). */
static const char *accessor(Gpu *G, const Var *v)
{
    for (size_t i = 0; i < G->k->nlocals; i++)
        if (G->k->locals[i] == v)
            return oklc_arena_printf(G->a, "_occa_local_%zu", i);
    return "_occa_local";
}

/* @shared float s[16][16], t; -> references into the work-group's memory:
 *   using _occa_local_3_t = float [16][16];
 *   _occa_local_3_t &s = *reinterpret_cast<_occa_local_3_t *>(_occa_local_3); */
static void shared_decl(Gpu *G, const Stmt *d)
{
    Buf b;
    oklc_buf_init(&b, G->a);
    for (size_t i = 0; i < d->ndecls; i++) {
        const Var *v = d->decls[i];
        const char *acc = accessor(G, v);
        oklc_buf_printf(&b, "%susing %s_t = %s; %s_t &%s = *reinterpret_cast<%s_t *>(%s);",
                        i ? " " : "", acc, v->type.spelling, acc, v->name, acc, acc);
    }
    oklc_edit_replace(&G->E->ed, d->range.begin, d->range.end, b.data);
}

/* The nest's @shared variables (sema keeps them in @outer loops): the
 * accessors the submitting function makes (`made`), the item function's
 * parameters and the kernel's arguments to it. */
typedef struct Locals {
    Buf made, params, args;
} Locals;

static void nest_locals(Gpu *G, const Loop *nest, Locals *l)
{
    oklc_buf_init(&l->made, G->a);
    oklc_buf_init(&l->params, G->a);
    oklc_buf_init(&l->args, G->a);
    oklc_buf_puts(&l->made, "");
    oklc_buf_puts(&l->params, "");
    oklc_buf_puts(&l->args, "");
    for (size_t i = 0; i < G->k->nlocals; i++) {
        const Var *v = G->k->locals[i];
        if (!is_shared(v) || !oklc_in_range(nest->stmt, v->name_off))
            continue;
        const char *acc = accessor(G, v);
        const char *size = v->size >= 0 && !v->type.dependent
                               ? oklc_arena_printf(G->a, "%lld", (long long)v->size)
                               : oklc_arena_printf(G->a, "sizeof(%s)", v->type.spelling);
        oklc_buf_printf(&l->made, "    sycl::local_accessor<_occa_local_unit, 1> %s("
                                  "sycl::range<1>(_occa_local_units(%s)), _occa_handler);\n",
                        acc, size);
        oklc_buf_printf(&l->params, ", _occa_local_unit *%s", acc);
        oklc_buf_printf(&l->args, ", &%s[0]", acc);
    }
}

/* ---- device kernels ------------------------------------------------------------------ */

/* "(float *a, int n)" -> "float *a, int n"; "" for "()" and "(void)". */
static const char *param_list(Gpu *G, const char *params)
{
    size_t n = strlen(params);
    const char *inner = oklc_arena_strndup(G->a, params + 1, n >= 2 ? n - 2 : 0);
    const char *p = inner;
    while (*p == ' ' || *p == '\n' || *p == '\t')
        p++;
    return !*p || !strcmp(p, "void") ? "" : inner;
}

static const char *comma(const char *list)
{
    return *list ? ", " : "";
}

/* The runtime's entry of a device kernel `fn`. */
static void run_entry(const char *fn, Buf *b)
{
    oklc_buf_printf(b, "extern \"C\" const char *%s_run(void *_occa_queue, "
                       "const unsigned long *_occa_grid,\n    const unsigned long *_occa_block, "
                       "void *const *_occa_args)\n{\n  return _occa_sycl_run(&%s, _occa_queue, "
                       "_occa_grid, _occa_block, _occa_args);\n}\n",
                    fn, fn);
}

/* The entry OCCA and the runtime call, extern "C" void NAME(queue, range,
 * params...): every value by reference, since both pass arguments by their
 * addresses (OCCA's sys::runFunction, the runtime's _occa_sycl_run); it
 * calls the kernel's body, which takes them as written. */
static void entry(Gpu *G, const DeviceKernel *d, const KernelOut *ko, const char *names, Buf *b)
{
    const char *typed = oklc_gpu_params(G, ko, GPU_PARAM_BY_REF);
    const char *fn = oklc_arena_printf(G->a, "%s%s", d->name, ko ? ko->suffix : "");
    oklc_buf_printf(b, "extern \"C\" void %s(sycl::queue *_occa_queue, "
                       "sycl::nd_range<3> *_occa_range%s%s)\n"
                       "{\n  %s_body%s(_occa_queue, _occa_range%s%s);\n}\n",
                    fn, comma(typed), typed, d->name, ko ? oklc_gpu_targs(G, ko) : "",
                    comma(names), names);
    run_entry(fn, b);
}

static const char *device_kernel(Gpu *G, const DeviceKernel *d)
{
    const Kernel *k = G->k;
    const char *params = param_list(G, d->params);
    const char *names = oklc_gpu_params(G, NULL, GPU_PARAM_NAMES);
    const char *tmpl = k->is_template
                           ? oklc_arena_printf(G->a, "template <%s>\n", k->template_params) : "";
    const char *targs = k->is_template
                            ? oklc_arena_printf(G->a, "<%s>", oklc_template_param_names(G->E->c, k))
                            : "";
    Locals l;
    nest_locals(G, d->nest, &l);
    Buf b;
    oklc_buf_init(&b, G->a);
    oklc_buf_printf(&b, "%sstatic void %s_item(const sycl::nd_item<3> &_occa_item%s%s%s)\n{\n%s}\n",
                    tmpl, d->name, l.params.data, comma(params), params, d->body);
    oklc_buf_printf(&b, "%sstatic void %s_body(sycl::queue *_occa_queue, "
                        "sycl::nd_range<3> *_occa_range%s%s)\n{\n",
                    tmpl, d->name, comma(params), params);
    oklc_buf_printf(&b, "  _occa_queue->submit([&](sycl::handler &_occa_handler) {\n%s"
                        "    _occa_handler.parallel_for(*_occa_range, "
                        "[=](sycl::nd_item<3> _occa_item)%s%s {\n"
                        "      %s_item%s(_occa_item%s%s%s);\n    });\n  });\n}\n",
                    l.made.data, *hint(G, d) ? " " : "", hint(G, d), d->name, targs,
                    l.args.data, comma(names), names);
    if (!k->is_template)
        entry(G, d, NULL, names, &b);
    for (size_t i = 0; k->is_template && i < G->E->kernels.len; i++)
        if (G->E->kernels.data[i].kernel == k)
            entry(G, d, &G->E->kernels.data[i], names, &b);
    return b.data;
}

/* ---- @atomic -------------------------------------------------------------------------- */

/* sycl::atomic_ref<T, relaxed, scope, space>(x), x seen as a T. */
static const char *atomic_ref(Gpu *G, const Atomic *at, const char *type, const char *x)
{
    const Var *t = at->target;
    const char *scope = "device", *space = "generic_space";
    if (t && is_shared(t))
        scope = "work_group", space = "local_space";
    else if (t && t->kind == VAR_PARAM)
        space = "global_space";
    return oklc_arena_printf(G->a, "sycl::atomic_ref<%s, sycl::memory_order::relaxed, "
                                   "sycl::memory_scope::%s, sycl::access::address_space::%s>"
                                   "(*(%s *)&(%s))",
                             type, scope, space, type, x);
}

static const char *fetch(AtomicOp op, bool is_float)
{
    switch (op) {
    case AT_ADD: case AT_INC: return "fetch_add";
    case AT_SUB: case AT_DEC: return "fetch_sub";
    case AT_MIN: return "fetch_min";
    case AT_MAX: return "fetch_max";
    case AT_ASSIGN: return "store";
    case AT_AND: return is_float ? NULL : "fetch_and";
    case AT_OR: return is_float ? NULL : "fetch_or";
    case AT_XOR: return is_float ? NULL : "fetch_xor";
    default: return NULL;
    }
}

static const char *dpcpp_atomic(Gpu *G, const Atomic *at)
{
    const char *type = oklc_atomic_native_type(at);
    if (!at->scalar || !type) {
        oklc_gpu_error(G, at->stmt.begin, "@atomic on a value of type '%s': the dpcpp backend "
                       "has atomics for 4- and 8-byte integers and floating point only",
                       at->type ? at->type : "");
        return NULL;
    }
    const char *x = oklc_edits_text(&G->E->ed, at->lhs.begin, at->lhs.end);
    const char *v = at->rhs.end > at->rhs.begin
                        ? oklc_edits_text(&G->E->ed, at->rhs.begin, at->rhs.end) : "1";
    const char *ref = atomic_ref(G, at, type, x);
    const char *fn = fetch(at->op, at->is_float);
    if (fn)
        return oklc_arena_printf(G->a, "%s.%s((%s)(%s))", ref, fn, type, v);
    const char *update = oklc_atomic_update(G->a, at, "_occa_v", type, "_occa_rhs");
    if (!update) {
        oklc_gpu_atomic_form_error(G, at);
        return NULL;
    }
    return oklc_arena_printf(G->a, "{ %sauto _occa_x = %s; %s _occa_v = _occa_x.load(); "
                                   "while (!_occa_x.compare_exchange_weak(_occa_v, %s)) {} }",
                             oklc_atomic_rhs(G->a, type, v), ref, type, update);
}

/* ---- what SYCL device code lacks ----------------------------------------------------------- */

static bool writable_statics(Emit *E, Var *const *vars, size_t n)
{
    bool ok = true;
    for (size_t i = 0; i < n; i++)
        if (vars[i]->static_ && !vars[i]->type.is_const && !vars[i]->constexpr_) {
            oklc_model_error(E->c, vars[i]->name_off, "'%s' is a static variable: SYCL device "
                             "code has only const ones", vars[i]->name);
            ok = false;
        }
    return ok;
}

static bool prepare(Emit *E)
{
    const Model *m = E->m;
    bool ok = true;
    for (size_t i = 0; i < m->ncalls; i++) {
        const Call *c = &m->calls[i];
        if (!c->name || oklc_intrinsic_spelling(E->c, c->name))
            continue;               /* the user's spelling replaces it */
        if (!strncmp(c->name, "okl_shfl", 8)) {
            oklc_model_error(E->c, c->name_off, "%s: the dpcpp backend has no warp shuffles "
                             "(SYCL's sub-group functions need the work-item, which a function "
                             "does not have)", c->name);
            ok = false;
        } else if (!strcmp(c->name, "printf")) {
            oklc_model_error(E->c, c->name_off, "printf: SYCL device code cannot call it (a "
                             "variadic function); use sycl::ext::oneapi::experimental::printf "
                             "in an #if OCCA_USE_DPCPP block");
            ok = false;
        }
    }
    for (size_t i = 0; i < m->nfunctions; i++)
        ok &= writable_statics(E, m->functions[i]->locals, m->functions[i]->nlocals);
    for (size_t i = 0; i < m->nkernels; i++)
        ok &= writable_statics(E, m->kernels[i]->locals, m->kernels[i]->nlocals);
    return ok;
}

static const GpuTarget dpcpp = {
    .kernel_specs = "extern \"C\"",
    .device_specs = NULL,
    .block_index = {"_occa_item.get_group(2)", "_occa_item.get_group(1)",
                    "_occa_item.get_group(0)"},
    .thread_index = {"_occa_item.get_local_id(2)", "_occa_item.get_local_id(1)",
                     "_occa_item.get_local_id(0)"},
    .barrier = "sycl::group_barrier(_occa_item.get_group());",
    .warp_barrier = "sycl::group_barrier(_occa_item.get_sub_group());",
    .constant_var = "",
    .global_var = NULL,
    .unroll = oklc_cuda_unroll,
    .launch_hint = launch_hint,
    .fault_param = "int *_occa_faults",
    .atomic = dpcpp_atomic,
    .prepare = prepare,
    .device_kernel = device_kernel,
    .shared_decl = shared_decl,
};

const Backend oklc_dpcpp_backend = {
    .name = "dpcpp",
    .id = OKLC_BACKEND_DPCPP,
    .macro = "DPCPP",
    .restrict_kw = "__restrict__",
    .includes = "#include <sycl/sycl.hpp>\n",
    .preamble = oklc_cpu_prelude,
    .more = oklc_dpcpp_prelude,
    .gpu = &dpcpp,
    .translate = oklc_gpu_translate,
};
