/*
 * fuzz_pipeline.c - libFuzzer target for the whole pipeline: any bytes
 * through preprocess, normalize, the Clang parse, the kernel model, the
 * checks of the OKL rules and one backend's emission (serial, OpenMP,
 * CUDA, HIP or OpenCL, chosen by the input's length, so that a seed
 * kernel stays whole and its mutations reach every backend). Besides
 * crashes, sanitizer reports and hangs it fails on a lie: a success with
 * an error reported or without output, metadata that is not JSON, or a
 * failure with no error reported, or an error without a position. Not part
 * of `make test` (it needs clang's libFuzzer); `make fuzz` runs it
 * (tests/fuzz/run.sh).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "oklc/oklc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void lie(const char *what, oklc_ctx *c)
{
    fprintf(stderr, "fuzz_pipeline: %s\n", what);
    oklc_diag_print(c, stderr, OKLC_DIAG_TEXT);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const oklc_backend backends[] = {OKLC_BACKEND_SERIAL, OKLC_BACKEND_OPENMP,
                                            OKLC_BACKEND_CUDA, OKLC_BACKEND_HIP,
                                            OKLC_BACKEND_OPENCL};
    oklc_ctx *c = oklc_ctx_new();
    oklc_define(c, "N=16");
    oklc_set_backend(c, backends[size % 5]);
    bool ok = oklc_transpile_buffer(c, "fuzz.okl", (const char *)data, size, 0);
    size_t len = 0;
    if (ok) {
        if (oklc_error_count(c))
            lie("success with an error reported", c);
        if (!oklc_output(c, &len))
            lie("success without output", c);
        const char *meta = oklc_metadata(c, &len);
        cJSON *json = meta ? cJSON_ParseWithLength(meta, len) : NULL;
        if (meta && !json)
            lie("metadata that is not JSON", c);
        cJSON_Delete(json);
    } else {
        if (!oklc_error_count(c))
            lie("failure with no error reported", c);
        oklc_diag_info d;
        for (size_t i = 0; oklc_diag_get(c, i, &d); i++)
            if (d.level == OKLC_ERROR && d.file && !d.line)
                lie("an error in a file without a line", c);
    }
    oklc_ctx_free(c);
    return 0;
}
