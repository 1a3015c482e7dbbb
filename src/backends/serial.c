/*
 * serial.c - the serial backend: C++ for one core. The loops are the
 * user's, in order (cpu.c); the CPU prelude makes the output compile by
 * itself.
 */
#include "backend.h"

const Backend oklc_serial_backend = {
    .name = "serial",
    .id = OKLC_BACKEND_SERIAL,
    .macro = "SERIAL",
    .restrict_kw = "__restrict__",
    .preamble = oklc_cpu_prelude,
    .openmp = false,
    .translate = oklc_cpu_translate,
};
