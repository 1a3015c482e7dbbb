/*
 * oklt/pipeline/transpiler.h - a kernel translated for a backend.
 */
#pragma once

#include <oklt/core/transpiler_session/user_input.h>
#include <oklt/core/transpiler_session/user_output.h>

namespace oklt {

/* The kernel (in either OKL form) translated: UserOutput::kernel and, for
 * CUDA, HIP and DPC++, UserOutput::launcher. */
UserResult transpile(UserInput input);

}  // namespace oklt
