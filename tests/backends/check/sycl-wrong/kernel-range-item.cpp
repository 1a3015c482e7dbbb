// expect: the kernel of parallel_for\(nd_range<D>\) takes an nd_item<D>
#include <sycl/sycl.hpp>
void f(sycl::queue *q, sycl::nd_range<3> *r) {
  q->submit([&](sycl::handler &h) { h.parallel_for(*r, [=](sycl::nd_item<1> it) { (void)it; }); });
}
