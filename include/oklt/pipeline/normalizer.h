/*
 * oklt/pipeline/normalizer.h - OKL 1.0 (@attr) to OKL 2.0 ([[okl::attr]]).
 */
#pragma once

#include <oklt/core/transpiler_session/user_input.h>
#include <oklt/core/transpiler_session/user_output.h>

namespace oklt {

/* The input preprocessed and normalized: UserOutput::normalized.source. */
UserResult normalize(UserInput input);

}  // namespace oklt
