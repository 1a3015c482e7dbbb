// addVectors as native C++ for the serial and OpenMP devices, written as
// OCCA's native kernels are: scalars by reference, memory as pointers.
extern "C" void addVectors(const int &entries, const float *a, const float *b, float *ab)
{
#pragma omp parallel for
    for (int i = 0; i < entries; ++i)
        ab[i] = a[i] + b[i];
}
