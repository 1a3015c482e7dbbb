// Declarations the seed examples use without declaring them (helper
// functions of the surrounding program). Seen by clang++ only.
#pragma once
