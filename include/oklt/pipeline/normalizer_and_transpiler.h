/*
 * oklt/pipeline/normalizer_and_transpiler.h - both steps in one call: what
 * OCCA calls for a kernel built with the property transpiler-version: 3.
 */
#pragma once

#include <oklt/core/transpiler_session/user_input.h>
#include <oklt/core/transpiler_session/user_output.h>

namespace oklt {

/* transpile(), with UserOutput::normalized filled as normalize() fills it. */
UserResult normalizeAndTranspile(UserInput input);

}  // namespace oklt
