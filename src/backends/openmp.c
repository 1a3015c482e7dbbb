/*
 * openmp.c - the OpenMP backend: the serial backend's code with each
 * top-level @outer loop nest on OpenMP threads and @atomic as OpenMP
 * atomics (cpu.c). The runtime sets the thread count through
 * _occa_set_num_threads, which the preamble defines.
 */
#include "backend.h"

static bool translate(Emit *E)
{
    if (!oklc_cpu_translate(E))
        return false;
    oklc_buf_puts(&E->tail, "extern \"C\" void _occa_set_num_threads(int n) "
                            "{ if (n > 0) omp_set_num_threads(n); }\n");
    return true;
}

const Backend oklc_openmp_backend = {
    .name = "openmp",
    .id = OKLC_BACKEND_OPENMP,
    .macro = "OPENMP",
    .restrict_kw = "__restrict__",
    .includes = "#include <omp.h>\n",
    .preamble = oklc_cpu_prelude,
    .openmp = true,
    .translate = translate,
};
