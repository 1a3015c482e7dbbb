/*
 * dpcpp_prelude.hpp - what every file of the DPC++ backend has after
 * <sycl/sycl.hpp> and the CPU prelude (cpu_prelude.hpp: OKL's types, vector
 * types, math and intrinsics in plain C++17, which SYCL device code
 * compiles as it is): the work-group memory of @shared variables, and the
 * runtime's calling convention.
 *
 * Names of its own start with _occa_.
 */
#ifndef OKLC_DPCPP_PRELUDE_HPP
#define OKLC_DPCPP_PRELUDE_HPP

#ifdef OKLC_PRELUDE_HALF
using half = sycl::half;    /* the kernel names half (the CPU prelude left it out) */
#endif

/* @shared memory comes in units aligned for any OKL type (double4: 32). */
struct alignas(32) _occa_local_unit {
  unsigned char _occa_bytes[32];
};
constexpr size_t _occa_local_units(size_t bytes) {
  return (bytes + sizeof(_occa_local_unit) - 1) / sizeof(_occa_local_unit);
}

/* The runtime's entry of a device kernel f(queue, nd_range, params...):
 * the nd-range from the launcher's grid and block (OKL axis n is SYCL
 * dimension 2 - n), argument i from args[i] as the CPU convention has it
 * (_occa_call); NULL when the submission succeeded, else the message of
 * the exception it threw (a C caller cannot catch it). */
namespace okl {
namespace detail {
template <class... _occa_P, size_t... _occa_I>
inline void sycl_submit(void (*f)(sycl::queue *, sycl::nd_range<3> *, _occa_P...),
                        sycl::queue *q, sycl::nd_range<3> *r, void *const *args,
                        indices<_occa_I...>) {
  (void)args;
  f(q, r, *static_cast<typename arg<_occa_P>::type *>(args[_occa_I])...);
}
} // namespace detail
} // namespace okl

template <class... _occa_P>
inline const char *_occa_sycl_run(void (*f)(sycl::queue *, sycl::nd_range<3> *, _occa_P...),
                                  void *queue, const unsigned long *grid,
                                  const unsigned long *block, void *const *args) {
  static thread_local char message[512];
  try {
    sycl::queue *q = static_cast<sycl::queue *>(queue);
#ifdef OKLC_PRELUDE_HALF
    /* half is an optional feature (SYCL 2020 5.7): say which, rather than
     * the implementation's errc::kernel_not_supported */
    if (!q->get_device().has(sycl::aspect::fp16)) {
      snprintf(message, sizeof message, "the kernel uses half, which the SYCL device '%s' "
               "lacks (no sycl::aspect::fp16)",
               q->get_device().get_info<sycl::info::device::name>().c_str());
      return message;
    }
#endif
    sycl::nd_range<3> range(sycl::range<3>(grid[2] * block[2], grid[1] * block[1],
                                           grid[0] * block[0]),
                            sycl::range<3>(block[2], block[1], block[0]));
    okl::detail::sycl_submit(f, q, &range, args,
                             typename okl::detail::make_indices<sizeof...(_occa_P)>::type());
    return nullptr;
  } catch (const std::exception &e) {
    snprintf(message, sizeof message, "%s", e.what());
    return message;
  }
}

#endif
