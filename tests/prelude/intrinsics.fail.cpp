// flags:
// Misuses of the intrinsics and okl::at: every line marked ERROR must be rejected.
void misuse(float *a, float x, int n) {
  okl_pipeline_wait_prior(); // ERROR: missing argument
  okl_pipeline_commit(1); // ERROR: no argument taken
  okl_memcpy_async(a, a); // ERROR: missing size
  okl::at(n, 1) = x; // ERROR: not an array
  at(a, 1) = x; // ERROR: at is in namespace okl
}
