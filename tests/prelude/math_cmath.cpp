// flags: -DOKLC_PRELUDE_SYSTEM_MATH
// Math with the kernel including <cmath> (oklc then defines the macro).
#include <cmath>
#include "math.inc"

float qualified(float x) { return std::sqrt(x) + std::pow(x, 2.0f) + std::abs(x); }
