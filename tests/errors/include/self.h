// Includes itself, without an include guard.
int self;
#include "self.h"
