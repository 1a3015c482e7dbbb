/*
 * oklt/core/transpiler_session/user_output.h - what a call produces.
 */
#pragma once

#include <map>
#include <string>
#include <vector>

#include <tl/expected.hpp>

namespace oklt {

struct UserOutput {
    struct {
        std::string source;                          /* the kernel in OKL's [[okl::...]] form */
        std::map<std::string, std::string> headers;  /* (oklc inlines "..." includes: empty) */
    } normalized;

    struct {
        std::string source;    /* the backend's source */
        std::string metadata;  /* its kernels' metadata, JSON in OCCA's schema */
    } kernel;

    struct {
        std::string source;    /* CUDA, HIP, DPC++: the host launcher */
        std::string metadata;  /* its metadata (JSON) */
    } launcher;
};

struct Error;
using UserResult = tl::expected<UserOutput, std::vector<Error>>;

}  // namespace oklt
