// Included by clang-error-in-include.okl: the error is here, line 3.
inline float twice(float x) {
  return x * undefined_factor;
}
