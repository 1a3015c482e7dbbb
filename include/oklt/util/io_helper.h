/*
 * oklt/util/io_helper.h - whole files as strings.
 */
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include <tl/expected.hpp>

namespace oklt::util {

/* The file's bytes, or errno's value when it cannot be read. */
tl::expected<std::string, int> readFileAsStr(const std::filesystem::path &path);
/* Replaces the file with `content`; errno's value when that fails. */
tl::expected<void, int> writeFileAsStr(const std::filesystem::path &path,
                                       std::string_view content);

}  // namespace oklt::util
