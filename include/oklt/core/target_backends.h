/*
 * oklt/core/target_backends.h - the backends of the oklt interface.
 */
#pragma once

#include <string>

#include <tl/expected.hpp>

namespace oklt {

enum struct TargetBackend : unsigned char {
    SERIAL,
    OPENMP,
    CUDA,
    HIP,
    DPCPP,
    /* the host launcher alone (of the CUDA backend): the output's kernel
     * part is the launcher and its metadata */
    _LAUNCHER,
};

/* "serial", "openmp", "cuda", "hip", "dpcpp", "launcher" (any case). */
tl::expected<TargetBackend, std::string> backendFromString(const std::string &type);
std::string backendToString(TargetBackend backend);
/* Serial and OpenMP: the kernels run on the host. */
bool isHostCategory(TargetBackend backend);
/* CUDA, HIP and DPC++: device kernels and a launcher. */
bool isDeviceCategory(TargetBackend backend);

}  // namespace oklt
