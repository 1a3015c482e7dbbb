/*
 * A stand-in for OCCA's <occa/core/memory.hpp> (see kernel.hpp): a handle
 * of a modeMemory_t whose bytes the test program keeps (standin_copy_to,
 * standin_free).
 */
#ifndef OCCA_STANDIN_MEMORY_HPP
#define OCCA_STANDIN_MEMORY_HPP

#include <cstddef>

namespace occa {

class modeMemory_t;
void standin_copy_to(const modeMemory_t *m, void *dest);
void standin_free(modeMemory_t *m);

class memory {
    modeMemory_t *m_;

  public:
    explicit memory(modeMemory_t *m) : m_(m) {}
    modeMemory_t *getModeMemory() const { return m_; }
    void copyTo(void *dest) const { standin_copy_to(m_, dest); }
    void free()
    {
        standin_free(m_);
        m_ = NULL;
    }
};

}  // namespace occa

#endif
