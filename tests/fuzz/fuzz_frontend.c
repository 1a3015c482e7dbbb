/*
 * fuzz_frontend.c - libFuzzer target: any bytes through preprocess and
 * normalize (both modes) must end in output or diagnostics, never a crash,
 * a sanitizer report or a hang. Not part of `make test` (it needs clang's
 * libFuzzer); `make fuzz` builds and runs it (tests/fuzz/run.sh).
 */
#include <stddef.h>
#include <stdint.h>

#include "oklc/oklc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const unsigned modes[] = {0, OKLC_KEEP_MACROS};
    for (int m = 0; m < 2; m++) {
        oklc_ctx *c = oklc_ctx_new();
        oklc_define(c, "N=16");
        oklc_normalize_buffer(c, "fuzz.okl", (const char *)data, size, modes[m]);
        oklc_ctx_free(c);
    }
    return 0;
}
