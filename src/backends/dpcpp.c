/*
 * dpcpp.c - the DPC++ backend (SYCL 2020). Being written.
 */
#include "backend.h"

const Backend oklc_dpcpp_backend = {
    .name = "dpcpp",
    .id = OKLC_BACKEND_DPCPP,
    .preamble = oklc_dpcpp_prelude,
    .translate = NULL,
};
