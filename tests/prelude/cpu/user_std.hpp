// What a kernel may include after the CPU prelude, and `using namespace
// std;`: nothing the prelude defines may then conflict or become ambiguous.
// values.cpp includes it with -DUSER_STD; cpu.sh force-includes it after the
// prelude before the test kernels.
#include <cmath>
#include <math.h>
#include <cstdlib>
#include <stdlib.h>
#include <cstdint>
#include <stdint.h>
#include <stdio.h>
#include <algorithm>
#include <limits>
#include <cfloat>
#include <climits>
using namespace std;
