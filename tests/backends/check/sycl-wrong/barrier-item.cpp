// expect: group_barrier takes a sycl::group or sycl::sub_group
#include <sycl/sycl.hpp>
void f(const sycl::nd_item<3> &item_) { sycl::group_barrier(item_); }
