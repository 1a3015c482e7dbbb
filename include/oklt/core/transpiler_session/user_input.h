/*
 * oklt/core/transpiler_session/user_input.h - what a call transpiles.
 */
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <oklt/core/target_backends.h>

namespace oklt {

struct UserInput {
    TargetBackend backend;
    std::string source;                          /* the kernel's text */
    std::map<std::string, std::string> headers;  /* files #include finds by this name, in memory */
    std::filesystem::path sourcePath;            /* for messages and "..." includes */
    std::vector<std::filesystem::path> includeDirectories;   /* -I */
    std::vector<std::string> defines;            /* "NAME" or "NAME=VALUE" (-D) */
    std::string hash;                            /* the caller's hash of the kernel */
};

}  // namespace oklt
