/*
 * backend.h - the backends: one table each, and what they share.
 *
 *   table.c     the list (table.h: what a backend is)
 *   backends.c  what every backend does (attributes deleted,
 *               @restrict, @dim indexing, entry points, instances)
 *   cpu.c       what serial and OpenMP share: OKL's loops as loops; the
 *               driver, running the CPU passes in order (cpu.h):
 *   cpu_split.c @inner loops split at the barriers inside them
 *   cpu_shape.c loops shaped for a CPU: guards as bounds, memory order
 *   cpu_interchange.c  per-thread loops interchanged with the threads
 *   cpu_fuse.c  a block's nests fused, its @shared staging read in place
 *   cpu_reduce.c  OpenMP reductions for @atomic updates of arguments
 *   cpu_counts.c  counting into copies of @shared arrays (cpu_shape.c's)
 *   cpu_base.c  what the CPU files share: rendering, slots, queries
 *   serial.c    the serial table
 *   openmp.c    the OpenMP table
 *   gpu.c       what CUDA, HIP and OpenCL share: device kernels, launchers
 *   cuda.c      the CUDA table (and the atomics HIP shares)
 *   hip.c       the HIP table
 *   opencl.c    the OpenCL table, and what OpenCL C needs of the file
 *   opencl_spaces.c  address spaces on every pointer (OpenCL, Metal)
 *   dpcpp.c     the DPC++ (SYCL 2020) table: kernels submitted to a queue
 *   metal.c     the Metal table
 *
 * A backend records edits against the normalized text (src/emit/); the
 * output is its preamble, the edited text, then its tail.
 */
#ifndef OKLC_BACKEND_H
#define OKLC_BACKEND_H

#include "../emit/emit.h"
#include "table.h"

/* The CPU backends' cost decisions, each "kernel K, for (...): what". */
typedef VEC(const char *) Decisions;

/* One transpilation in progress. */
typedef struct Emit {
    oklc_ctx         *c;
    const Normalized *nz;
    Model            *m;
    const Backend    *be;
    Edits             ed;
    VEC(KernelOut)    kernels;    /* what the metadata lists, in order */
    Buf               tail;       /* after the user's code: entry points */
    const char       *path;       /* the input, for comments */
    const char       *launcher;   /* GPU-like backends: the host launcher */
    Buf               head;       /* before the backend's includes: #defines */
    const void       *target;     /* what the target's prepare() found */
    Edits            *relaid;     /* CPUs: the input with its split @inner loops
                                     written as OKL again (cpu_split.c, cpu_fuse.c,
                                     cpu_interchange.c), or NULL */
    unsigned          tiles;      /* CPUs: the flat @tile loops a relay could write as
                                     tiles (oklc_cpu_relay_tile), numbered in order; */
    const IdSet      *tiles_kept; /* those of them that stay as written (oklc.c), */
    bool              tiles_all_kept; /* or all of them */
    unsigned          relays;     /* CPUs: the edits asked of `relaid`, and those of */
    unsigned          tile_relays; /* them for flat @tile loops */
    const IdSet      *tiles_interchanged; /* the tiles a relay wrote, numbered in their
                                     order here, where a loop was interchanged with
                                     their threads (oklc.c keeps the others as
                                     written: tiles_in_vain()) */
    Decisions         decisions;  /* CPUs: each rewrite the cost model applied or
                                     refused, and why (cpu_base.c's
                                     oklc_cpu_decision; `check --dump-model`) */
    Decisions         relaid_decisions; /* those of them already written into the
                                     relaid text (a fusion): the next translation
                                     does not make them again */
} Emit;

/* The output of a finished transpilation (src/emit/output.c): its text,
 * and the context's metadata and launcher. */
OKLC_INTERNAL const char *oklc_emit_output(Emit *E, const char *input_hash, size_t *len);

/* ---- backends.c: shared by all ---------------------------------------------- */

/* Deletes the [[okl::...]] attributes, rewrites @restrict and @dim accesses. */
OKLC_INTERNAL void oklc_emit_attributes(Emit *E);
/* intrinsics.c: calls of the user's intrinsics spelled on the backend,
 * rewritten (before the backend's own edits); false after an error. */
OKLC_INTERNAL bool oklc_emit_intrinsics(Emit *E);
OKLC_INTERNAL void oklc_emit_dims(Emit *E, const Kernel *k);
/* The kernels and template instances the output provides, with their
 * entry symbols; reports instances that name no template kernel. */
OKLC_INTERNAL bool oklc_emit_kernel_list(Emit *E);

/* A test a launch of a nest makes before it runs (docs/launchers.md): a
 * step or tile size that is not positive, an @inner loop with more
 * iterations than @max_inner_dims gives the block. C++ of the kernel's
 * arguments and the file's constants. */
typedef struct LaunchCheck {
    const Loop *loop;
    const char *refused;      /* true when the launch is refused */
    const char *message;      /* a printf format of two long longs: */
    const char *a, *b;
} LaunchCheck;

/* The variable of the nest of top-level @outer loop `top` (an enclosing
 * iterator, a declaration in the nest) that loop l's header reads: its
 * count is known only inside the nest; NULL when the arguments give it. */
OKLC_INTERNAL const Var *oklc_emit_nest_var(const Kernel *k, const Loop *top, const Loop *l);
/* An @inner loop of the nest of `top` whose count is known at run time
 * only, under @max_inner_dims: the block may have fewer threads than its
 * iterations. The launch checks its count when the arguments give it, the
 * device (oklc_gpu_fault) when the nest's variables do. */
OKLC_INTERNAL bool oklc_emit_bounded_inner(const Loop *top, const Loop *l);
/* Such a loop whose count the nest's variables give. */
OKLC_INTERNAL bool oklc_emit_device_checked(const Kernel *k, const Loop *top, const Loop *l);
/* Such a loop's fault: the message a run fails with when the loop has
 * more iterations than the threads of its axis in the block. */
OKLC_INTERNAL const char *oklc_emit_fault(Emit *E, const Loop *top, const Loop *l);
/* The threads of such a loop's axis in the block: @max_inner_dims's size
 * there ("1" for an axis it does not give). */
OKLC_INTERNAL const char *oklc_emit_inner_max(const Loop *top, const Loop *l);
/* The checks of the nest of top-level @outer loop `top` of kernel k; those
 * of loops whose headers read the nest's own variables are not among them
 * (known only inside, where a step is the user's, as in any loop). */
OKLC_INTERNAL size_t oklc_emit_launch_checks(Emit *E, const Kernel *k, const Loop *top,
                                             const LaunchCheck **out);
/* `return` in an @outer or @inner loop ends that iteration (of a block or
 * a thread), not the kernel; where the loops stay loops (CPUs) it becomes
 * `continue` when that loop is the nearest, else (and for `continue` too
 * where the loops are gone) a jump to the end of the iteration. Reports
 * what cannot be translated. */
OKLC_INTERNAL void oklc_emit_jumps(Emit *E, const Kernel *k, bool loops_stay);
/* Deletes a statement, and its line when nothing else is on it. */
OKLC_INTERNAL void oklc_emit_delete_stmt(Emit *E, uint32_t begin, uint32_t end);
/* The [[...]] that holds an attribute. */
OKLC_INTERNAL const SpecRange *oklc_emit_spec_of(const Emit *E, const Attr *a);
/* The indentation of the line that holds `off`. */
OKLC_INTERNAL const char *oklc_emit_indent(Emit *E, uint32_t off);
/* s, in parentheses unless it is one token. */
OKLC_INTERNAL const char *oklc_emit_operand(Emit *E, const char *s);
/* The count of a `#pragma unroll [n]` line from its arguments ("" for a
 * bare unroll), or NULL when the pragma is another one. */
OKLC_INTERNAL const char *oklc_emit_unroll_count(const char *args);
/* Where the statement at `begin` starts with the [[...]] in front of it
 * (Clang's range of an attributed statement starts after them): what is
 * put before its attributes (a pragma) is rendered with it. */
OKLC_INTERNAL uint32_t oklc_emit_stmt_start(const Emit *E, uint32_t begin);
/* A line (a #pragma) before a statement, and before the [[...]] that
 * hold its attributes. */
OKLC_INTERNAL void oklc_emit_pragma_before(Emit *E, Attr *const *attrs, size_t nattrs,
                                           uint32_t stmt, const char *pragma);
/* A @tile's element level l: the end of the current tile (a declaration of
 * _occa_end_<i>, "" without the bound check), and the loop in it, from
 * _occa_tiled_<i>. */
OKLC_INTERNAL const char *oklc_emit_tile_end(Emit *E, const Loop *l);
OKLC_INTERNAL const char *oklc_emit_tile_loop(Emit *E, const Loop *l);
/* The new value of an @atomic's x from its old value `old` (of type
 * `type`), for a compare-and-swap loop; NULL: no such update. */
OKLC_INTERNAL const char *oklc_atomic_update(Arena *a, const Atomic *at, const char *old,
                                             const char *type, const char *v);
/* "const T _occa_rhs = (T)(v); ": the loop's right-hand side, read once. */
OKLC_INTERNAL const char *oklc_atomic_rhs(Arena *a, const char *type, const char *v);
/* A variable named like one of the target's keywords becomes _occa_<name>,
 * at its declaration and every use. */
OKLC_INTERNAL void oklc_emit_rename_keywords(Emit *E, const char *const *keywords, size_t n);
/* `#define OKLC_PRELUDE_HALF 1` in the head when the output names half:
 * each prelude then defines half as the target's binary16 type, or stops
 * with an #error where the target or its compiler lacks one. */
OKLC_INTERNAL void oklc_emit_half(Emit *E);
/* The type the atomic functions of CUDA, HIP and SYCL take for an
 * @atomic's x, by size, sign and kind (NULL: none of 4 or 8 bytes). */
OKLC_INTERNAL const char *oklc_atomic_native_type(const Atomic *at);
/* The iterator's declared type: "int" of "int i = 0". */
OKLC_INTERNAL const char *oklc_emit_iter_type(Emit *E, const Loop *l);

/* ---- cpu.c: serial and OpenMP (the rest of the CPU backend is in cpu.h) ------------- */

extern const char oklc_cpu_prelude[];   /* cpu_prelude.hpp, embedded */
OKLC_INTERNAL bool oklc_cpu_translate(Emit *E);
/* cpu_instrument.c: the counters of oklc_set_count_ops (serial) */
OKLC_INTERNAL void oklc_cpu_instrument(Emit *E);

/* ---- gpu.c: CUDA, HIP, OpenCL, DPC++, Metal ------------------------------------------ */

/* One kernel being translated for a GPU-like target. */
typedef struct Gpu {
    Emit            *E;
    Kernel          *k;
    const GpuTarget *T;
    Arena           *a;
    bool             ok;
    VEC(const char *) faults;     /* the loops only the device checks (their messages) */
} Gpu;

/* A device kernel's parts, for the target to put together. */
typedef struct DeviceKernel {
    size_t      index;            /* of the nest in the kernel */
    const char *name;             /* "_occa_K_0" */
    const char *params;           /* "(float *a, const int n)", edited */
    const char *hint;             /* the launch-size hint, or NULL */
    const char *top;              /* declarations at its top (OpenCL's __local) */
    const char *body;             /* the declarations the nest reads, then the nest */
    const Loop *nest;             /* the top-level @outer loop */
} DeviceKernel;

/* What a GPU-like backend writes. */
struct GpuTarget {
    const char *kernel_specs;     /* before a device kernel: "extern \"C\" __global__" */
    const char *device_specs;     /* before other functions: "__device__", or NULL */
    const char *shared;           /* "__shared__", "__local" */
    bool        shared_on_top;    /* OpenCL: __local only at the kernel's top level */
    const char *block_index[3];   /* "blockIdx.x", "get_group_id(0)" */
    const char *thread_index[3];  /* "threadIdx.x", "get_local_id(0)" */
    const char *barrier;          /* "__syncthreads();" */
    const char *warp_barrier;     /* "__syncwarp();" */
    /* the line before a loop that asks to unroll it (count "": fully) */
    const char *(*unroll)(Arena *a, const char *count);
    const char *constant_var;     /* before a constant global: "__constant__" */
    const char *global_var;       /* before another global, or NULL: none */
    /* the launch-size hint of a block of constant size, or NULL */
    const char *(*launch_hint)(Arena *a, const int64_t block[3]);
    /* OpenCL's kernel hints, [[cl::work_group_size_hint(x, y, z)]] (a
     * format of three numbers) and [[cl::vec_type_hint(T)]] (of the type);
     * NULL: the target has none, and the hint is dropped */
    const char *size_hint;
    const char *vec_hint;
    /* the device kernels' last parameter when the kernel has faults to
     * report (gpu.c fault_check): "__global int *_occa_faults"; NULL: none */
    const char *fault_param;
    /* Metal: no packed structs ([[cl::packed]] is an error) */
    bool        no_packed;
    /* the most threads a block has on every device of the target (CUDA,
     * HIP: 1024); 0: each device says, at launch */
    int64_t     max_block;
    /* what an @atomic expression statement becomes (NULL after an error) */
    const char *(*atomic)(Gpu *G, const Atomic *at);
    /* what the target does to the whole file first (or NULL); false after
     * an error */
    bool (*prepare)(Emit *E);
    /* the device kernel and, for a template kernel, its instances (NULL:
     * CUDA's form, `specs void name(params) { top body }`) */
    const char *(*device_kernel)(Gpu *G, const DeviceKernel *d);
    /* no templates (OpenCL C): a template kernel's instances are copies of
     * its device kernels with the template's arguments written in */
    bool        copy_instances;
    /* what a @shared declaration statement becomes (NULL: `shared` before
     * it, or at the top with shared_on_top) */
    void (*shared_decl)(Gpu *G, const Stmt *d);
    /* address spaces (opencl_spaces.c, for targets whose prepare() calls
     * oklc_gpu_spaces): the names of unknown, private, global, local and
     * constant memory; whether a private pointer says so too (Metal's
     * `thread`); the language, in messages; the target's built-in
     * functions, which a function of the file so named cannot be (renamed) */
    const char *spaces[5];
    bool        private_space;
    /* x = y of structs, a side in memory other than the thread's: the
     * function that assigns (NULL: the language's =; Metal's is for thread
     * memory) */
    const char *struct_assign;
    const char *language;
    bool (*builtin)(const char *name);
    /* Metal: no goto; a jump out of an iteration is a `continue` of a
     * do { ... } while (0) around its body (backends.c) */
    bool        no_goto;
};

OKLC_INTERNAL bool oklc_gpu_translate(Emit *E);
OKLC_INTERNAL void oklc_gpu_error(Gpu *G, uint32_t off, const char *fmt, ...) OKLC_PRINTF(3, 4);
/* "this @atomic is not one the <backend> backend can write: use ..." */
OKLC_INTERNAL void oklc_gpu_atomic_form_error(Gpu *G, const Atomic *at);
/* How a target spells a compare-and-swap on 4 bytes [0] and on 8 [1]:
 * the unsigned type of the bits, the functions that give a float's bits
 * and a float of bits, and the swap, cas(p, expected, new) -> old. */
typedef struct CasSpelling {
    const char *bits[2], *to_bits[2], *from_bits[2], *cas[2];
} CasSpelling;
/* The @atomic at, x = update(_occa_v) with _occa_v x's value, as a loop
 * of such swaps on x's bits (CUDA, HIP, OpenCL): x's address is taken as
 * `qual` (a qualifier and an address space, with a blank after) pointer to
 * the bits; x's value is of the target's type `type`; the update reads
 * _occa_rhs, its right-hand side v read once. NULL (reported) for an
 * update that has no such form. */
OKLC_INTERNAL const char *oklc_gpu_cas_loop(Gpu *G, const Atomic *at, const CasSpelling *sp,
                                            const char *qual, const char *type, const char *x,
                                            const char *v);
/* A kernel's parameters with their types (of instance ko, or as written
 * when ko is NULL), or their names only: "float *a, const int n", "a, n";
 * GPU_PARAM_BY_REF takes every value by reference: "float *a, const int &n". */
typedef enum GpuParams { GPU_PARAM_NAMES, GPU_PARAM_TYPED, GPU_PARAM_BY_REF } GpuParams;
OKLC_INTERNAL const char *oklc_gpu_params(Gpu *G, const KernelOut *ko, GpuParams form);
/* An instance's template arguments: "<float, 8>". */
OKLC_INTERNAL const char *oklc_gpu_targs(Gpu *G, const KernelOut *ko);
OKLC_INTERNAL const char *oklc_cuda_atomic(Gpu *G, const Atomic *at);
OKLC_INTERNAL const char *oklc_cuda_launch_hint(Arena *a, const int64_t block[3]);
OKLC_INTERNAL const char *oklc_cuda_unroll(Arena *a, const char *count);
/* The GpuTarget fields CUDA and HIP share (HIP adds its warp barrier). */
#define OKLC_CUDA_SPELLINGS                                                               \
    .kernel_specs = "extern \"C\" __global__", .device_specs = "__device__",               \
    .shared = "__shared__", .block_index = {"blockIdx.x", "blockIdx.y", "blockIdx.z"},   \
    .thread_index = {"threadIdx.x", "threadIdx.y", "threadIdx.z"},                       \
    .barrier = "__syncthreads();", .constant_var = "__constant__",                       \
    .global_var = "__device__", .unroll = oklc_cuda_unroll,                               \
    .launch_hint = oklc_cuda_launch_hint, .atomic = oklc_cuda_atomic,                    \
    .fault_param = "int *_occa_faults", .max_block = 1024
/* opencl_spaces.c (OpenCL, Metal): the address spaces of the file's
 * pointers (and references), written; the space an expression of kernel k
 * points into (NULL: private). */
OKLC_INTERNAL bool oklc_gpu_spaces(Emit *E);
OKLC_INTERNAL const char *oklc_gpu_space(const Emit *E, const Kernel *k, Range expr);
/* opencl.c: is it the name of one of OpenCL C's built-in functions? What
 * Metal shares with OpenCL C: no recursion (an error at each function
 * called again before it returns), no std:: (dropped), no system headers
 * (their #include lines dropped, with a note). */
OKLC_INTERNAL bool oklc_opencl_builtin(const char *name);
OKLC_INTERNAL bool oklc_opencl_no_recursion(Emit *E);
OKLC_INTERNAL void oklc_opencl_drop_std(Emit *E);
OKLC_INTERNAL void oklc_opencl_drop_includes(Emit *E);
extern const char oklc_cuda_prelude[];     /* cuda_prelude.cuh, embedded */
extern const char oklc_opencl_prelude[];   /* opencl_prelude.cl, embedded */

/* ---- dpcpp.c: DPC++ (SYCL 2020) ------------------------------------------------------ */

extern const char oklc_dpcpp_prelude[];    /* dpcpp_prelude.hpp, embedded */

/* ---- metal.c: Metal ------------------------------------------------------------------ */

extern const char oklc_metal_prelude[];    /* metal_prelude.metal, embedded */

#endif
