// expect: sycl::atomic_ref of a type SYCL 2020 does not list
#include <sycl/sycl.hpp>
void f(short *x) {
  sycl::atomic_ref<short, sycl::memory_order::relaxed, sycl::memory_scope::device,
                   sycl::access::address_space::global_space>(*x).fetch_add(1);
}
