// flags: -DOKLC_PRELUDE_SYSTEM_MATH
// Math with the kernel including <math.h> (oklc then defines the macro).
#include <math.h>
#include "math.inc"
