// expect: no matching member function for call to 'fetch_or'
#include <sycl/sycl.hpp>
void f(float *x) {
  sycl::atomic_ref<float, sycl::memory_order::relaxed, sycl::memory_scope::device,
                   sycl::access::address_space::global_space>(*x).fetch_or(1.0f);
}
