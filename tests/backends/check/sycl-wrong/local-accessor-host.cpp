// expect: no matching constructor for initialization of 'sycl::local_accessor
#include <sycl/sycl.hpp>
void f() { sycl::local_accessor<int, 1> a(sycl::range<1>(4)); }
