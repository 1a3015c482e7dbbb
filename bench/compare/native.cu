// bench/compare/native.cu - the kernels of kernels.okl written by hand in
// CUDA, as a CUDA programmer writes them: one thread per iteration of the
// @inner loops, the same block sizes, __syncthreads() only where the data
// needs it. Built by the runtime as native source (oklc_props_okl false)
// with NVRTC on the cuda device (hiprtc on the hip device: nothing here is
// CUDA-only), so with the same compiler and options as the generated code;
// bench.c sets the same grid as the OKL launcher computes
// (oklc_kernel_set_run_dims).
//
// Each computes what its OKL twin computes, in the same order of floating
// point operations.
#if defined(__HIPCC__) && !defined(__HIPCC_RTC__)
#include <hip/hip_runtime.h> // hipcc (hiprtc and nvcc declare the built-ins themselves)
#endif

// b[i] = a[i]; blocks of 256
extern "C" __global__ void copy_native(const int n, const float *__restrict__ a,
                                       float *__restrict__ b)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        b[i] = a[i];
}

// a[i] = b[i] + s c[i]; blocks of 256
extern "C" __global__ void triad_native(const int n, const float s, const float *__restrict__ b,
                                        const float *__restrict__ c, float *__restrict__ a)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = b[i] + s * c[i];
}

// copy and triad with 4 elements per thread, blockDim.x apart; blocks of
// 256 threads, 1024 elements
#define ILP 4
extern "C" __global__ void copy4_native(const int n, const float *__restrict__ a,
                                        float *__restrict__ b)
{
    for (int k = 0; k < ILP; ++k) {
        const int i = (blockIdx.x * ILP + k) * blockDim.x + threadIdx.x;
        if (i < n)
            b[i] = a[i];
    }
}

extern "C" __global__ void triad4_native(const int n, const float s, const float *__restrict__ b,
                                         const float *__restrict__ c, float *__restrict__ a)
{
    for (int k = 0; k < ILP; ++k) {
        const int i = (blockIdx.x * ILP + k) * blockDim.x + threadIdx.x;
        if (i < n)
            a[i] = b[i] + s * c[i];
    }
}

// partial[g] = the sum of x[256 g .. 256 g + 255], a tree in shared memory
#define RB 256
extern "C" __global__ void blockSum_native(const int n, const float *__restrict__ x,
                                           float *__restrict__ partial)
{
    __shared__ float s_x[RB];
    const int t = threadIdx.x, g = blockIdx.x, i = g * RB + t;
    s_x[t] = i < n ? x[i] : 0.f;
    __syncthreads();
    for (int alive = RB / 2; alive > 0; alive /= 2) {
        if (t < alive)
            s_x[t] += s_x[t + alive];
        __syncthreads();
    }
    if (t == 0)
        partial[g] = s_x[0];
}

// partial[g] = the dot product over entries 4096 g .. 4096 g + 4095: each
// thread a strided slice, then a tree in shared memory; blocks of 256
extern "C" __global__ void dot_native(const int n, const float *__restrict__ x,
                                      const float *__restrict__ y, float *__restrict__ partial)
{
    __shared__ float s[256];
    const int t = threadIdx.x, begin = blockIdx.x * 4096;
    const int end = begin + 4096 < n ? begin + 4096 : n;
    float acc = 0.f;
    for (int i = begin + t; i < end; i += 256)
        acc += x[i] * y[i];
    s[t] = acc;
    __syncthreads();
    for (int k = 128; k > 0; k /= 2) {
        if (t < k)
            s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0)
        partial[blockIdx.x] = s[0];
}


// one Jacobi sweep on the interior of an n x n grid; 16 x 16 blocks
extern "C" __global__ void jacobi2d_native(const int n, const float h2,
                                           const float *__restrict__ u,
                                           const float *__restrict__ f,
                                           float *__restrict__ unew)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x > 0 && y > 0 && x < n - 1 && y < n - 1) {
        const int id = y * n + x;
        unew[id] = 0.25f * (u[id - 1] + u[id + 1] + u[id - n] + u[id + n] + h2 * f[id]);
    }
}

// C = A B, 16 x 16 tiles in shared memory (n a multiple of 16), in floats
// and in doubles
#define TM 16
template <typename T>
__device__ void matmul_tiles(const int n, const T *__restrict__ A, const T *__restrict__ B,
                             T *__restrict__ C)
{
    __shared__ T s_A[TM][TM], s_B[TM][TM];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TM + ty, col = blockIdx.x * TM + tx;
    T c = 0;
    for (int kt = 0; kt < n; kt += TM) {
        s_A[ty][tx] = A[row * n + kt + tx];
        s_B[ty][tx] = B[(kt + ty) * n + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TM; ++k)
            c += s_A[ty][k] * s_B[k][tx];
        __syncthreads();
    }
    C[row * n + col] = c;
}

extern "C" __global__ void matmul_native(const int n, const float *__restrict__ A,
                                         const float *__restrict__ B, float *__restrict__ C)
{
    matmul_tiles(n, A, B, C);
}

extern "C" __global__ void matmul64_native(const int n, const double *__restrict__ A,
                                           const double *__restrict__ B, double *__restrict__ C)
{
    matmul_tiles(n, A, B, C);
}

// spectral-element gradient, Nq = 8: a block of 8 x 8 per element, u's
// column along k in registers, one k-plane at a time in shared memory
#define NQ 8
#define NP (NQ * NQ * NQ)
extern "C" __global__ void gradient_native(const int E, const double *__restrict__ D,
                                           const double *__restrict__ u,
                                           double *__restrict__ gradu)
{
    __shared__ double s_D[NQ][NQ], s_u[NQ][NQ];
    double r_u[NQ];
    const int e = blockIdx.x, i = threadIdx.x, j = threadIdx.y;
    s_D[j][i] = D[j * NQ + i];
#pragma unroll
    for (int k = 0; k < NQ; ++k)
        r_u[k] = u[e * NP + k * NQ * NQ + j * NQ + i];
#pragma unroll
    for (int k = 0; k < NQ; ++k) {
        __syncthreads();    // the previous plane is used up
        s_u[j][i] = r_u[k];
        __syncthreads();
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

// spectral-element Poisson operator (kernels.okl: axhex), Nq = 8: a block
// of 8 x 8 per element, the element and its derivatives in shared memory,
// columns along k in registers
extern "C" __global__ void axhex_native(const int E, const double *__restrict__ G,
                                        const double *__restrict__ D,
                                        const double *__restrict__ q, double *__restrict__ Aq)
{
    __shared__ double s_D[NQ][NQ], s_q[NQ][NQ][NQ], s_Gqr[NQ][NQ][NQ], s_Gqs[NQ][NQ][NQ];
    double r_q[NQ], r_Aq[NQ];
    const int e = blockIdx.x, i = threadIdx.x, j = threadIdx.y;
    s_D[j][i] = D[j * NQ + i];
    for (int k = 0; k < NQ; ++k) {
        const double qn = q[e * NP + k * NQ * NQ + j * NQ + i];
        s_q[k][j][i] = qn;
        r_q[k] = qn;
        r_Aq[k] = 0;
    }
    __syncthreads();
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
    __syncthreads();
    for (int k = 0; k < NQ; ++k) {
        double r = r_Aq[k];
        for (int m = 0; m < NQ; ++m)
            r += s_D[m][i] * s_Gqr[k][j][m] + s_D[m][j] * s_Gqs[k][m][i];
        Aq[e * NP + k * NQ * NQ + j * NQ + i] = r;
    }
}

// hist[v] += the number of bytes equal to v: a shared histogram per block
// of 256 over a chunk of HC bytes, then one atomic add per bin
#define HB 256
#define HC (256 * 64)
extern "C" __global__ void histogram_native(const int n, const unsigned char *__restrict__ data,
                                            unsigned int *__restrict__ hist)
{
    __shared__ unsigned int s_h[HB];
    const int t = threadIdx.x, g = blockIdx.x;
    s_h[t] = 0;
    __syncthreads();
    const int end = min((g + 1) * HC, n);
    for (int i = g * HC + t; i < end; i += HB)
        atomicAdd(&s_h[data[i]], 1u);
    __syncthreads();
    atomicAdd(&hist[t], s_h[t]);
}
