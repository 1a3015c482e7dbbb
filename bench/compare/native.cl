// bench/compare/native.cl - the kernels of kernels.okl written by hand in
// OpenCL C 1.2, as an OpenCL programmer writes them: one work-item per
// iteration of the @inner loops, the same work-group sizes, barriers only
// where the data needs them. Built by the runtime as native source
// (oklc_props_okl false) on the same device as the generated code, so with
// the same compiler (clBuildProgram) and options; bench.c sets the same
// grid as the OKL launcher computes (oklc_kernel_set_run_dims).
//
// Each computes what its OKL twin computes, in the same order of floating
// point operations.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

// b[i] = a[i]; work-groups of 256
__kernel void copy_native(const int n, __global const float *restrict a,
                          __global float *restrict b)
{
    const int i = get_global_id(0);
    if (i < n)
        b[i] = a[i];
}

// a[i] = b[i] + s c[i]; work-groups of 256
__kernel void triad_native(const int n, const float s, __global const float *restrict b,
                           __global const float *restrict c, __global float *restrict a)
{
    const int i = get_global_id(0);
    if (i < n)
        a[i] = b[i] + s * c[i];
}

// copy and triad with 4 elements per work-item, the work-group size
// apart; work-groups of 256, 1024 elements
#define ILP 4
__kernel void copy4_native(const int n, __global const float *restrict a,
                           __global float *restrict b)
{
    for (int k = 0; k < ILP; ++k) {
        const int i = (get_group_id(0) * ILP + k) * get_local_size(0) + get_local_id(0);
        if (i < n)
            b[i] = a[i];
    }
}

__kernel void triad4_native(const int n, const float s, __global const float *restrict b,
                            __global const float *restrict c, __global float *restrict a)
{
    for (int k = 0; k < ILP; ++k) {
        const int i = (get_group_id(0) * ILP + k) * get_local_size(0) + get_local_id(0);
        if (i < n)
            a[i] = b[i] + s * c[i];
    }
}

// partial[g] = the sum of x[256 g .. 256 g + 255], a tree in local memory
#define RB 256
__kernel void blockSum_native(const int n, __global const float *restrict x,
                              __global float *restrict partial)
{
    __local float s_x[RB];
    const int t = get_local_id(0), g = get_group_id(0), i = g * RB + t;
    s_x[t] = i < n ? x[i] : 0.f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int alive = RB / 2; alive > 0; alive /= 2) {
        if (t < alive)
            s_x[t] += s_x[t + alive];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t == 0)
        partial[g] = s_x[0];
}

// partial[g] = the dot product over entries 4096 g .. 4096 g + 4095: each
// work-item a strided slice, then a tree in local memory; work-groups of 256
__kernel void dot_native(const int n, __global const float *restrict x,
                         __global const float *restrict y, __global float *restrict partial)
{
    __local float s[256];
    const int t = get_local_id(0), begin = get_group_id(0) * 4096;
    const int end = begin + 4096 < n ? begin + 4096 : n;
    float acc = 0.f;
    for (int i = begin + t; i < end; i += 256)
        acc += x[i] * y[i];
    s[t] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 128; k > 0; k /= 2) {
        if (t < k)
            s[t] += s[t + k];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t == 0)
        partial[get_group_id(0)] = s[0];
}



// one Jacobi sweep on the interior of an n x n grid; 16 x 16 work-groups
__kernel void jacobi2d_native(const int n, const float h2, __global const float *restrict u,
                              __global const float *restrict f,
                              __global float *restrict unew)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x > 0 && y > 0 && x < n - 1 && y < n - 1) {
        const int id = y * n + x;
        unew[id] = 0.25f * (u[id - 1] + u[id + 1] + u[id - n] + u[id + n] + h2 * f[id]);
    }
}

// C = A B, 16 x 16 tiles in local memory (n a multiple of 16), in floats
// and in doubles
#define TM 16
#define MATMUL(name, T)                                                                    \
    __kernel void name(const int n, __global const T *restrict A,                          \
                       __global const T *restrict B, __global T *restrict C)               \
    {                                                                                      \
        __local T s_A[TM][TM], s_B[TM][TM];                                                \
        const int tx = get_local_id(0), ty = get_local_id(1);                              \
        const int row = get_group_id(1) * TM + ty, col = get_group_id(0) * TM + tx;       \
        T c = 0;                                                                           \
        for (int kt = 0; kt < n; kt += TM) {                                               \
            s_A[ty][tx] = A[row * n + kt + tx];                                            \
            s_B[ty][tx] = B[(kt + ty) * n + col];                                          \
            barrier(CLK_LOCAL_MEM_FENCE);                                                  \
            _Pragma("unroll") for (int k = 0; k < TM; ++k) c += s_A[ty][k] * s_B[k][tx];   \
            barrier(CLK_LOCAL_MEM_FENCE);                                                  \
        }                                                                                  \
        C[row * n + col] = c;                                                              \
    }
MATMUL(matmul_native, float)
MATMUL(matmul64_native, double)

// spectral-element gradient, Nq = 8: a work-group of 8 x 8 per element,
// u's column along k in registers, one k-plane at a time in local memory
#define NQ 8
#define NP (NQ * NQ * NQ)
__kernel void gradient_native(const int E, __global const double *restrict D,
                              __global const double *restrict u,
                              __global double *restrict gradu)
{
    __local double s_D[NQ][NQ], s_u[NQ][NQ];
    double r_u[NQ];
    const int e = get_group_id(0), i = get_local_id(0), j = get_local_id(1);
    s_D[j][i] = D[j * NQ + i];
#pragma unroll
    for (int k = 0; k < NQ; ++k)
        r_u[k] = u[e * NP + k * NQ * NQ + j * NQ + i];
#pragma unroll
    for (int k = 0; k < NQ; ++k) {
        barrier(CLK_LOCAL_MEM_FENCE);    // the previous plane is used up
        s_u[j][i] = r_u[k];
        barrier(CLK_LOCAL_MEM_FENCE);
        double ur = 0, us = 0, ut = 0;
#pragma unroll
        for (int m = 0; m < NQ; ++m) {
            ur += s_D[i][m] * s_u[j][m];
            us += s_D[j][m] * s_u[m][i];
            ut += s_D[k][m] * r_u[m];
        }
        const int id = e * 3 * NP + k * NQ * NQ + j * NQ + i;
        gradu[id] = ur;
        gradu[id + NP] = us;
        gradu[id + 2 * NP] = ut;
    }
}

// hist[v] += the number of bytes equal to v: a local histogram per

// spectral-element Poisson operator (kernels.okl: axhex), Nq = 8: a
// work-group of 8 x 8 per element, the element and its derivatives in
// local memory, columns along k in private memory
__kernel void axhex_native(const int E, __global const double *restrict G,
                           __global const double *restrict D,
                           __global const double *restrict q, __global double *restrict Aq)
{
    __local double s_D[NQ][NQ], s_q[NQ][NQ][NQ], s_Gqr[NQ][NQ][NQ], s_Gqs[NQ][NQ][NQ];
    double r_q[NQ], r_Aq[NQ];
    const int e = get_group_id(0), i = get_local_id(0), j = get_local_id(1);
    s_D[j][i] = D[j * NQ + i];
    for (int k = 0; k < NQ; ++k) {
        const double qn = q[e * NP + k * NQ * NQ + j * NQ + i];
        s_q[k][j][i] = qn;
        r_q[k] = qn;
        r_Aq[k] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < NQ; ++k) {
        double qr = 0, qs = 0, qt = 0;
        for (int m = 0; m < NQ; ++m) {
            qr += s_D[i][m] * s_q[k][j][m];
            qs += s_D[j][m] * s_q[k][m][i];
            qt += s_D[k][m] * r_q[m];
        }
        const int n = e * 6 * NP + k * NQ * NQ + j * NQ + i;
        const double G00 = G[n], G01 = G[n + NP], G02 = G[n + 2 * NP];
        const double G11 = G[n + 3 * NP], G12 = G[n + 4 * NP], G22 = G[n + 5 * NP];
        s_Gqr[k][j][i] = G00 * qr + G01 * qs + G02 * qt;
        s_Gqs[k][j][i] = G01 * qr + G11 * qs + G12 * qt;
        const double Gqt = G02 * qr + G12 * qs + G22 * qt;
        for (int m = 0; m < NQ; ++m)
            r_Aq[m] += s_D[k][m] * Gqt;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < NQ; ++k) {
        double r = r_Aq[k];
        for (int m = 0; m < NQ; ++m)
            r += s_D[m][i] * s_Gqr[k][j][m] + s_D[m][j] * s_Gqs[k][m][i];
        Aq[e * NP + k * NQ * NQ + j * NQ + i] = r;
    }
}

// work-group of 256 over a chunk of HC bytes, then one atomic add per bin
#define HB 256
#define HC (256 * 64)
__kernel void histogram_native(const int n, __global const uchar *restrict data,
                               __global uint *restrict hist)
{
    __local uint s_h[HB];
    const int t = get_local_id(0), g = get_group_id(0);
    s_h[t] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const int end = min((g + 1) * HC, n);
    for (int i = g * HC + t; i < end; i += HB)
        atomic_inc(&s_h[data[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_add(&hist[t], s_h[t]);
}
