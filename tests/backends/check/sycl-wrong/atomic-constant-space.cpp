// expect: address space other than global, local, generic
#include <sycl/sycl.hpp>
void f(int *x) {
  sycl::atomic_ref<int, sycl::memory_order::relaxed, sycl::memory_scope::device,
                   sycl::access::address_space::constant_space>(*x).fetch_add(1);
}
