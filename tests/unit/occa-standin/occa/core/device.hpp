/*
 * A stand-in for OCCA's <occa/core/device.hpp> (see kernel.hpp): the
 * device of a kernel, and malloc<T>(entries, src), which the test program
 * does (standin_malloc).
 */
#ifndef OCCA_STANDIN_DEVICE_HPP
#define OCCA_STANDIN_DEVICE_HPP

#include <cstddef>

#include <occa/core/kernel.hpp>
#include <occa/core/memory.hpp>

namespace occa {

modeMemory_t *standin_malloc(std::size_t bytes, const void *src);

class device {
  public:
    template <class T> memory malloc(long entries, const void *src = NULL)
    {
        return memory(standin_malloc(static_cast<std::size_t>(entries) * sizeof(T), src));
    }
};

inline device kernel::getDevice() { return device(); }

}  // namespace occa

#endif
