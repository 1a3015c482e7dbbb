/*
 * metal.c - the Metal backend (Metal Shading Language 2.4). Not written yet.
 */
#include "backend.h"

const Backend oklc_metal_backend = {
    .name = "metal",
    .id = OKLC_BACKEND_METAL,
    .preamble = oklc_metal_prelude,
    .translate = NULL,
};
