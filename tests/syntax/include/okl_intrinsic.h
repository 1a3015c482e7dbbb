// Stub of the OKL intrinsic header for the clang++ syntax check only:
// the seed's reductionWithSharedMemory example includes <okl_intrinsic.h>,
// which oklc passes through. Declarations only, no definitions.
#pragma once
#include <stddef.h>

// Asynchronous copy from global to shared memory. The seed passes the
// elements themselves (s_vec[item], vec[...]), not their addresses, so the
// stub takes them by reference.
template <typename T>
void okl_memcpy_async(T &dst_shared, const T &src_global, size_t size_and_align,
                      size_t zfill = 0);
// Commits the asynchronous copies issued so far as one batch.
void okl_pipeline_commit();
// Waits until at most N committed batches are still in flight.
void okl_pipeline_wait_prior(size_t N);
