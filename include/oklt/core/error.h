/*
 * oklt/core/error.h - what a failed call of the oklt interface reports.
 *
 * The oklt interface is the transpiler API OCCA calls (docs/occa.md);
 * oklc implements it over its C API (include/oklc/oklc.h).
 */
#pragma once

#include <any>
#include <string>
#include <system_error>

namespace oklt {

/* One error: its kind (oklt::category()), and its description: for an
 * error in the kernel, "file:line:col: error: message" with the source
 * line and a caret, and the notes that belong to it, as `oklc check`
 * prints them. */
struct Error {
    std::error_code ec;
    std::string desc;
    std::any ctx;    /* nothing, from oklc */
};

struct Warning {
    std::string desc;
};

/* The kinds of Error::ec, in oklt::category(). */
enum class ErrorCode {
    kernel = 1,        /* the kernel is wrong: desc says where and why */
    backend = 2,       /* the backend is not one oklt knows */
    io = 3,            /* a file could not be read or written */
    out_of_memory = 4, /* the transpilation ran out of memory */
};

const std::error_category &category();
std::error_code make_error_code(ErrorCode e);

}  // namespace oklt

namespace std {
template <>
struct is_error_code_enum<oklt::ErrorCode> : true_type {};
}  // namespace std
