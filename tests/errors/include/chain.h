// Includes the header with the mistake.
#include "bad-directive.h"
