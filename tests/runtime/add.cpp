// addVectors written as native C++ for oklc's CPU devices (no OKL): the
// calling convention of the CPU backends, args[i] pointing to argument i.
extern "C" void addVectors(void *const *args)
{
    const int n = *static_cast<const int *>(args[0]);
    const float *a = *static_cast<float *const *>(args[1]);
    const float *b = *static_cast<float *const *>(args[2]);
    float *ab = *static_cast<float *const *>(args[3]);
    for (int i = 0; i < n; ++i)
        ab[i] = a[i] + b[i];
}
