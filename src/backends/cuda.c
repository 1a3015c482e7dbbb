/*
 * cuda.c - the CUDA backend: device kernels `extern "C" __global__`, blocks
 * and threads from blockIdx and threadIdx (gpu.c), and @atomic as CUDA's
 * atomic functions, with a compare-and-swap loop where CUDA has none for
 * the operation and type. HIP shares the atomics (hip.c).
 */
#include <string.h>

#include "backend.h"

const char *oklc_cuda_launch_hint(Arena *a, const int64_t block[3])
{
    return oklc_arena_printf(a, "__launch_bounds__(%lld)",
                             (long long)(block[0] * block[1] * block[2]));
}

const char *oklc_cuda_unroll(Arena *a, const char *count)
{
    return oklc_arena_printf(a, "#pragma unroll%s%s", *count ? " " : "", count);
}

/* for what CUDA has no atomic function for (x *= v, float min...) */
static const CasSpelling cuda_cas = {
    {"unsigned int", "unsigned long long"},
    {"__float_as_uint", "__double_as_longlong"},
    {"__uint_as_float", "__longlong_as_double"},
    {"atomicCAS", "atomicCAS"},
};

/* atomicF((T *)&(x), (T)(v)) */
static const char *call(Gpu *G, const char *fn, const char *type, const char *x, const char *v)
{
    return oklc_arena_printf(G->a, "%s((%s *)&(%s), (%s)(%s))", fn, type, x, type, v);
}

const char *oklc_cuda_atomic(Gpu *G, const Atomic *at)
{
    const char *type = oklc_atomic_native_type(at);
    if (!at->scalar || !type) {
        oklc_gpu_error(G, at->stmt.begin, "@atomic on a value of type '%s': the %s backend has "
                       "atomics for 4- and 8-byte integers and floating point only",
                       at->type ? at->type : "", G->E->be->name);
        return NULL;
    }
    const char *x = oklc_edits_text(&G->E->ed, at->lhs.begin, at->lhs.end);
    const char *v = at->rhs.end > at->rhs.begin
                        ? oklc_edits_text(&G->E->ed, at->rhs.begin, at->rhs.end) : "1";
    /* 8-byte signed integers: the unsigned functions, bit for bit */
    const char *bits = at->size == 8 && !at->is_float ? "unsigned long long" : type;
    bool f = at->is_float;
    switch (at->op) {
    case AT_ADD: case AT_INC:
        return call(G, "atomicAdd", bits, x, v);
    case AT_SUB: case AT_DEC:
        if (f)
            return call(G, "atomicAdd", type, x, oklc_arena_printf(G->a, "-(%s)", v));
        if (at->size == 4)
            return call(G, "atomicSub", type, x, v);
        return call(G, "atomicAdd", bits, x, oklc_arena_printf(G->a, "0ULL - (%s)(%s)", bits, v));
    case AT_AND: case AT_OR: case AT_XOR:
        if (f)
            break;
        return call(G, at->op == AT_AND ? "atomicAnd" : at->op == AT_OR ? "atomicOr" : "atomicXor",
                    bits, x, v);
    case AT_ASSIGN:
        if (f && at->size == 8)
            return oklc_arena_printf(G->a, "atomicExch((unsigned long long *)&(%s), "
                                           "__double_as_longlong(%s))", x, v);
        return call(G, "atomicExch", bits, x, v);
    case AT_MIN: case AT_MAX:
        if (!f)
            return call(G, at->op == AT_MIN ? "atomicMin" : "atomicMax", type, x, v);
        break;
    default:
        break;
    }
    return oklc_gpu_cas_loop(G, at, &cuda_cas, "", type, x, v);
}

static const GpuTarget cuda = {
    OKLC_CUDA_SPELLINGS,
    .warp_barrier = "__syncwarp();",
};

const Backend oklc_cuda_backend = {
    .name = "cuda",
    .id = OKLC_BACKEND_CUDA,
    .macro = "CUDA",
    .restrict_kw = "__restrict__",
    .preamble = oklc_cuda_prelude,
    .gpu = &cuda,
    .translate = oklc_gpu_translate,
};
