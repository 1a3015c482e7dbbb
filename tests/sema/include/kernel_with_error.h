// Included by include-kernel-error.okl: the kernel with the error (line 4).
@kernel void k(float *a, int N) {
  @outer for (int b = 0; b < N; b += 16) {
    int base = b;
    @inner for (int t = 0; t < 16; ++t) {
      a[base + t] = 0;
    }
  }
}
