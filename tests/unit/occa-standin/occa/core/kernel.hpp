/*
 * A stand-in for OCCA's <occa/core/kernel.hpp>, for test_oklt.cpp: the part
 * of OCCA's API that a launcher in OCCA's convention uses (occa::kernel
 * from a modeKernel_t *, occa::dim, setRunDims, operator() with the
 * arguments), which instead of launching prints what it was asked to do:
 *
 *   launch K<id> outer X Y Z inner X Y Z: int 1000, memory 1, struct(12)
 *
 * The test program defines modeKernel_t and modeMemory_t and says their
 * ids, and is told of each launch (standin_launched). occa::device and
 * occa::memory are in device.hpp and memory.hpp. C++11, as OCCA compiles
 * launchers.
 */
#ifndef OCCA_STANDIN_KERNEL_HPP
#define OCCA_STANDIN_KERNEL_HPP

#include <cstdio>
#include <type_traits>

namespace occa {

class modeKernel_t;
class modeMemory_t;
class device;
int standin_id(const modeKernel_t *k);
int standin_id(const modeMemory_t *m);
void standin_launched(const modeKernel_t *k);

struct dim {
    unsigned long x, y, z;
    dim(unsigned long x_, unsigned long y_, unsigned long z_) : x(x_), y(y_), z(z_) {}
};

inline void describe(modeMemory_t *m) { std::printf("memory %d", standin_id(m)); }
template <class T>
inline typename std::enable_if<std::is_integral<T>::value>::type describe(const T &v)
{
    std::printf("int %lld", static_cast<long long>(v));
}
template <class T>
inline typename std::enable_if<std::is_floating_point<T>::value>::type describe(const T &v)
{
    std::printf("float %g", static_cast<double>(v));
}
template <class T>
inline typename std::enable_if<std::is_class<T>::value>::type describe(const T &)
{
    std::printf("struct(%zu)", sizeof(T));
}

class kernel {
    modeKernel_t *k_;
    dim outer_, inner_;

    void args() {}
    template <class A, class... R> void args(const A &a, const R &...rest)
    {
        describe(a);
        if (sizeof...(R))
            std::printf(", ");
        args(rest...);
    }

  public:
    explicit kernel(modeKernel_t *k) : k_(k), outer_(0, 0, 0), inner_(0, 0, 0) {}
    device getDevice();     /* device.hpp */
    void setRunDims(dim outer, dim inner)
    {
        outer_ = outer;
        inner_ = inner;
    }
    template <class... A> void operator()(const A &...a)
    {
        std::printf("launch K%d outer %lu %lu %lu inner %lu %lu %lu: ", standin_id(k_), outer_.x,
                    outer_.y, outer_.z, inner_.x, inner_.y, inner_.z);
        args(a...);
        std::printf("\n");
        standin_launched(k_);
    }
};

}  // namespace occa

#endif
