// flags:
// Math without <cmath>: the prelude declares it.
#include "math.inc"
