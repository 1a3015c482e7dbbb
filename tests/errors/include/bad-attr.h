// An attribute misspelled in a header.
@kernel void helper(int n) {
  for (int i = 0; i < n; ++i; @outr) {
  }
}
