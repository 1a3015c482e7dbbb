// addVectors as native OpenCL C: one work item per entry.
__kernel void addVectors(const int entries, __global const float *a,
                         __global const float *b, __global float *ab)
{
    const int i = get_global_id(0);
    if (i < entries)
        ab[i] = a[i] + b[i];
}
