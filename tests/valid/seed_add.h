// The helper seed 000's addVectors examples call without defining it.
static inline float add(float a, float b) { return a + b; }
