/*
 * rtcbuild.c - compiles one generated CUDA or HIP source as the runtime's
 * cuda and hip devices do (NVRTC, hiprtc: oklc_gpu_rtc_compile, with the
 * prelude's stand-ins for the standard headers), for tests/backends/
 * compile.sh: the runtime compilers differ from nvcc and hipcc (no C++
 * library, no host code), and a GPU is not needed to find that out.
 * Usage: rtcbuild nvrtc|hiprtc OPTION... FILE
 *   e.g. rtcbuild nvrtc -std=c++17 --gpu-architecture=sm_90 out
 * Exit status: 0 compiled, 1 not (the compiler's log on stderr), 2 usage or
 * no such compiler.
 */
#include <stdio.h>
#include <string.h>

#include "../prelude/gpu/slurp.h"
#include "runtime/rt.h"

int main(int argc, char **argv)
{
    bool nv = argc >= 3 && strcmp(argv[1], "nvrtc") == 0;
    if (argc < 3 || (!nv && strcmp(argv[1], "hiprtc") != 0)) {
        fputs("usage: rtcbuild nvrtc|hiprtc OPTION... FILE\n", stderr);
        return 2;
    }
    const char *file = argv[argc - 1], *const *opts = (const char *const *)argv + 2;
    size_t nopts = (size_t)argc - 3;
    char *source = slurp(file);
    if (!source) {
        fprintf(stderr, "rtcbuild: cannot read '%s'\n", file);
        return 2;
    }
    char *binary = NULL, *log = NULL;
    size_t size;
    oklc_status st = oklc_gpu_rtc_compile(nv ? &oklc_nvrtc : &oklc_hiprtc, source, file, true,
                                          opts, nopts, &binary, &size, &log);
    if (st)
        fprintf(stderr, "rtcbuild: %s\n", oklc_last_error());
    oklc_free(binary);
    oklc_free(log);
    free(source);
    return st == OKLC_OK ? 0 : st == OKLC_ERR_UNAVAILABLE ? 2 : 1;
}
