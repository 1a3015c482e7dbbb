// Declarations the seed examples use without declaring them (helper
// functions of the surrounding program). Seen by clang++ only.
#pragma once

// addVectors (seed 000, "High Level Design"): ab[i] = add(a[i], b[i]).
float add(float a, float b);

// @dimOrder example (seed 000, Appendix B): state.velocity(1) = ...
struct OklSeedState { float &velocity(int axis); };
extern OklSeedState state;
