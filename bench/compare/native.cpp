// bench/compare/native.cpp - the kernels of kernels.okl written by hand
// for a CPU: plain loops, `#pragma omp parallel for` where the work splits,
// nothing of OKL. Built by the runtime as native source (oklc_props_okl
// false) on the same device as the generated code, so with the same
// compiler, flags (-std=c++17 -shared -fPIC [-fopenmp] -O3 -march=native,
// or OKLC_CXX / OKLC_CXXFLAGS) and launch path: each kernel is
// `extern "C" void name(void *const *args)`, args[i] pointing to argument i
// (for memory, to a variable holding the address). Without -fopenmp (the
// serial device) the pragmas are ignored and the code is the serial version.
//
// Each computes what its OKL twin computes, in the same order of floating
// point operations (the results agree bit for bit): the same computation,
// written the fastest way a CPU allows.
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define ARG(T, i) (*static_cast<T const *>(args[i]))

// The runtime calls this before every run on the OpenMP device, as it does
// the generated code's: the two run with the same number of threads.
extern "C" void _occa_set_num_threads(int n)
{
#ifdef _OPENMP
    if (n > 0)
        omp_set_num_threads(n);
#else
    (void)n;
#endif
}

// b[i] = a[i]
extern "C" void copy_native(void *const *args)
{
    const int n = ARG(int, 0);
    const float *__restrict__ a = ARG(float *, 1);
    float *__restrict__ b = ARG(float *, 2);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i)
        b[i] = a[i];
}

// a[i] = b[i] + s c[i]
extern "C" void triad_native(void *const *args)
{
    const int n = ARG(int, 0);
    const float s = ARG(float, 1);
    const float *__restrict__ b = ARG(float *, 2);
    const float *__restrict__ c = ARG(float *, 3);
    float *__restrict__ a = ARG(float *, 4);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i)
        a[i] = b[i] + s * c[i];
}

// copy4 and triad4 compute what copy and triad do: on a CPU the same loop
extern "C" void copy4_native(void *const *args)
{
    copy_native(args);
}

extern "C" void triad4_native(void *const *args)
{
    triad_native(args);
}

// partial[b] = the sum of x[256 b .. 256 b + 255] (x beyond n counts 0).
extern "C" void blockSum_native(void *const *args)
{
    // The kernel's own order of additions (a tree over each block), so the
    // sums agree bit for bit: the same computation, written for a CPU (a
    // local copy of the block, each level a loop of constant bounds). The
    // loop over the levels is left as written; the generated code has it
    // unrolled (docs/benchmarks.md measures both).
    const int n = ARG(int, 0);
    const float *__restrict__ x = ARG(float *, 1);
    float *__restrict__ partial = ARG(float *, 2);
    enum { B = 256 };
    const int nb = (n + B - 1) / B;
#pragma omp parallel for schedule(static)
    for (int b = 0; b < nb; ++b) {
        float s[B];
        const int m = n - b * B < B ? n - b * B : B;
        memcpy(s, x + (size_t)b * B, (size_t)m * sizeof *s);
        for (int t = m; t < B; ++t)
            s[t] = 0.f;
        for (int w = B / 2; w > 0; w /= 2)
            for (int t = 0; t < w; ++t)
                s[t] += s[t + w];
        partial[b] = s[0];
    }
}

// partial[b] = the dot product of x and y over entries 4096 b .. 4096 b +
// 4095: each block's sum in 16 lanes (a SIMD reduction GCC vectorizes
// without -ffast-math), then the lanes added. Another order of additions
// than the kernel's tree, which floating point allows (bench.c: 1e-5).
extern "C" void dot_native(void *const *args)
{
    const int n = ARG(int, 0);
    const float *__restrict__ x = ARG(float *, 1);
    const float *__restrict__ y = ARG(float *, 2);
    float *__restrict__ partial = ARG(float *, 3);
    enum { B = 4096, L = 16 };
    const int nb = (n + B - 1) / B;
#pragma omp parallel for schedule(static)
    for (int b = 0; b < nb; ++b) {
        const int begin = b * B, end = n - begin < B ? n : begin + B;
        float lane[L] = {0};
        int i = begin;
        for (; i + L <= end; i += L)
            for (int l = 0; l < L; ++l)
                lane[l] += x[i + l] * y[i + l];
        for (; i < end; ++i)
            lane[0] += x[i] * y[i];
        float s = 0.f;
        for (int l = 0; l < L; ++l)
            s += lane[l];
        partial[b] = s;
    }
}

// unew = (u_W + u_E + u_S + u_N + h2 f) / 4 on the interior of an n x n grid.
extern "C" void jacobi2d_native(void *const *args)
{
    const int n = ARG(int, 0);
    const float h2 = ARG(float, 1);
    const float *__restrict__ u = ARG(float *, 2);
    const float *__restrict__ f = ARG(float *, 3);
    float *__restrict__ unew = ARG(float *, 4);
#pragma omp parallel for schedule(static)
    for (int y = 1; y < n - 1; ++y) {
        const float *__restrict__ uc = u + (size_t)y * n;
        const float *__restrict__ us = uc - n;
        const float *__restrict__ un = uc + n;
        const float *__restrict__ fr = f + (size_t)y * n;
        float *__restrict__ o = unew + (size_t)y * n;
        for (int x = 1; x < n - 1; ++x)
            o[x] = 0.25f * (uc[x - 1] + uc[x + 1] + us[x] + un[x] + h2 * fr[x]);
    }
}

// GCC 12 targeting AVX-512 vectorises the loops of the double kernels
// below along their reduction loop (m, k) as in-order (fold-left)
// reductions, a chain of dependent adds per vector: 4-8x slower than the
// short i / q loops vectorised, which is the code written here (and what
// AVX2 builds do). Loop vectorisation is off in those functions, so that
// the SLP vectoriser makes vectors of the i / q loops.
#if defined(__GNUC__) && !defined(__clang__)
#define LANES_NOT_SUMS __attribute__((optimize("no-tree-loop-vectorize")))
#else
#define LANES_NOT_SUMS
#endif

// C = A B, n x n row-major, where n is not a multiple of a register
// tile: the plain i-k-j loops.
template <typename T>
static void matmul_plain(int n, const T *__restrict__ A, const T *__restrict__ B,
                         T *__restrict__ C)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j)
            C[(size_t)i * n + j] = 0;
        for (int k = 0; k < n; ++k)
            for (int j = 0; j < n; ++j)
                C[(size_t)i * n + j] += A[(size_t)i * n + k] * B[(size_t)k * n + j];
    }
}

// C = A B, n x n row-major, as a CPU wants it: a register tile of 8 rows x
// 32 columns of C (16 vectors of 16 floats on AVX-512) kept in registers
// while k runs over a block of 128 (the block of B, 128 x 32, stays in L1),
// the rows of the tile sharing each loaded row of B. The terms add in the
// order k = 0, 1, ..., n - 1, as in the tiled kernel. n not a multiple of
// the tile: the plain i-k-j loops.
enum { MR = 8, NR = 32, KB = 128 };

static void matmul_tile(int n, const float *__restrict__ A, const float *__restrict__ B,
                        float *__restrict__ C, int i, int j, int k0, int k1)
{
    float acc[MR][NR];
    for (int r = 0; r < MR; ++r)
        for (int q = 0; q < NR; ++q)
            acc[r][q] = k0 ? C[(size_t)(i + r) * n + j + q] : 0.f;
    for (int k = k0; k < k1; ++k) {
        const float *__restrict__ bk = B + (size_t)k * n + j;
        for (int r = 0; r < MR; ++r) {
            const float a = A[(size_t)(i + r) * n + k];
            for (int q = 0; q < NR; ++q)
                acc[r][q] += a * bk[q];
        }
    }
    for (int r = 0; r < MR; ++r)
        for (int q = 0; q < NR; ++q)
            C[(size_t)(i + r) * n + j + q] = acc[r][q];
}

extern "C" void matmul_native(void *const *args)
{
    const int n = ARG(int, 0);
    const float *__restrict__ A = ARG(float *, 1);
    const float *__restrict__ B = ARG(float *, 2);
    float *__restrict__ C = ARG(float *, 3);
    if (n % MR || n % NR) {
        matmul_plain(n, A, B, C);
        return;
    }
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i += MR)
        for (int k0 = 0; k0 < n; k0 += KB)
            for (int j = 0; j < n; j += NR)
                matmul_tile(n, A, B, C, i, j, k0, k0 + KB < n ? k0 + KB : n);
}

// C = A B in doubles, n x n row-major, n large (1536: B is 18 MiB), as a
// CPU wants it: B's columns in panels of 512, their rows in blocks of 256
// packed into a contiguous buffer (8 columns per micro-panel), so that a
// register tile of 4 rows x 8 columns of C (8 vectors of 4 doubles)
// streams the block from L2 in order instead of walking B's rows 12 KiB
// apart; each thread packs its own. The terms add in the order k = 0, 1,
// ..., n - 1, as in the tiled kernel. n not a multiple of the tile: the
// plain i-k-j loops. (Of the register tiles and blocks tried on AVX2, this
// was the fastest plain C++; unpacked, as matmul_native, it ran at half
// the speed at this size.)
enum { MR64 = 4, NR64 = 8, KC64 = 256, NC64 = 512 };

LANES_NOT_SUMS static void matmul64_tile(int n, const double *__restrict__ A,
                                         const double *__restrict__ Bp,
                                         double *__restrict__ C, int i, int j, int k0, int kn)
{
    double acc[MR64][NR64];
    for (int r = 0; r < MR64; ++r)
        for (int q = 0; q < NR64; ++q)
            acc[r][q] = k0 ? C[(size_t)(i + r) * n + j + q] : 0.0;
    for (int k = 0; k < kn; ++k) {
        const double *__restrict__ b = Bp + (size_t)k * NR64;
        for (int r = 0; r < MR64; ++r) {
            const double a = A[(size_t)(i + r) * n + k0 + k];
            for (int q = 0; q < NR64; ++q)
                acc[r][q] += a * b[q];
        }
    }
    for (int r = 0; r < MR64; ++r)
        for (int q = 0; q < NR64; ++q)
            C[(size_t)(i + r) * n + j + q] = acc[r][q];
}

extern "C" void matmul64_native(void *const *args)
{
    const int n = ARG(int, 0);
    const double *__restrict__ A = ARG(double *, 1);
    const double *__restrict__ B = ARG(double *, 2);
    double *__restrict__ C = ARG(double *, 3);
    if (n % MR64 || n % NR64) {
        matmul_plain(n, A, B, C);
        return;
    }
#pragma omp parallel
    {
        double *Bp = static_cast<double *>(malloc(sizeof(double) * KC64 * NC64));
        for (int jc = 0; jc < n; jc += NC64) {
            const int nc = n - jc < NC64 ? n - jc : NC64;
            for (int k0 = 0; k0 < n; k0 += KC64) {
                const int kn = n - k0 < KC64 ? n - k0 : KC64;
                for (int jr = 0; jr < nc; jr += NR64)
                    for (int k = 0; k < kn; ++k)
                        memcpy(Bp + (size_t)jr * kn + (size_t)k * NR64,
                               B + (size_t)(k0 + k) * n + jc + jr, NR64 * sizeof(double));
#pragma omp for schedule(static)
                for (int i = 0; i < n; i += MR64)
                    for (int jr = 0; jr < nc; jr += NR64)
                        matmul64_tile(n, A, Bp + (size_t)jr * kn, C, i, jc + jr, k0, kn);
            }
        }
        free(Bp);
    }
}

// Spectral-element gradient, Nq = 8: per element, ur = D along r (i), us
// along s (j), ut along t (k), each vectorized over i; the element's 4 KiB
// of u stays in L1 while it is used 24 times.
// One element (a function of its own, so that LANES_NOT_SUMS holds where
// the OpenMP loop calls it as well).
LANES_NOT_SUMS static void gradient_element(int e, const double (*Dt)[8],
                                            const double *__restrict__ D,
                                            const double *__restrict__ u,
                                            double *__restrict__ gradu)
{
    enum { Nq = 8, Np = Nq * Nq * Nq };
    const double *__restrict__ ue = u + (size_t)e * Np;
    double *__restrict__ g = gradu + (size_t)e * 3 * Np;
    for (int k = 0; k < Nq; ++k) {
        for (int j = 0; j < Nq; ++j) {
            const double *row = ue + k * Nq * Nq + j * Nq;
            double ur[Nq] = {0}, us[Nq] = {0}, ut[Nq] = {0};
            for (int m = 0; m < Nq; ++m) {
                const double um = row[m], dj = D[j * Nq + m], dk = D[k * Nq + m];
                const double *uj = ue + k * Nq * Nq + m * Nq;    // u(., m, k)
                const double *uk = ue + m * Nq * Nq + j * Nq;    // u(., j, m)
                for (int i = 0; i < Nq; ++i) {
                    ur[i] += Dt[m][i] * um;
                    us[i] += dj * uj[i];
                    ut[i] += dk * uk[i];
                }
            }
            double *o = g + k * Nq * Nq + j * Nq;
            for (int i = 0; i < Nq; ++i) {
                o[i] = ur[i];
                o[i + Np] = us[i];
                o[i + 2 * Np] = ut[i];
            }
        }
    }
}

extern "C" void gradient_native(void *const *args)
{
    enum { Nq = 8, Np = Nq * Nq * Nq };
    const int E = ARG(int, 0);
    const double *__restrict__ D = ARG(double *, 1);
    const double *__restrict__ u = ARG(double *, 2);
    double *__restrict__ gradu = ARG(double *, 3);
    double Dt[Nq][Nq];    // Dt[m][i] = D[i][m]: ur's i loop reads it with stride 1
    for (int i = 0; i < Nq; ++i)
        for (int m = 0; m < Nq; ++m)
            Dt[m][i] = D[i * Nq + m];
#pragma omp parallel for schedule(static)
    for (int e = 0; e < E; ++e)
        gradient_element(e, Dt, D, u, gradu);
}

// Aq = D^T G D q per element (kernels.okl: axhex), the loops in the order
// a CPU wants: i innermost (one vector of 8 doubles), the derivatives of the
// whole element first, then the transposed sums. Another order of
// additions than the kernel's (bench.c: 1e-12).
// One element (a function of its own, so that LANES_NOT_SUMS holds where
// the OpenMP loop calls it as well).
LANES_NOT_SUMS static void axhex_element(int e, const double (*Dt)[8], const double *__restrict__ G,
                                         const double *__restrict__ D, const double *__restrict__ q,
                                         double *__restrict__ Aq)
{
    enum { Nq = 8, Np = Nq * Nq * Nq };
    const double *__restrict__ qe = q + (size_t)e * Np;
    const double *__restrict__ ge = G + (size_t)e * 6 * Np;
    double gr[Np], gs[Np], gt[Np];
    for (int k = 0; k < Nq; ++k)
        for (int j = 0; j < Nq; ++j) {
            double qr[Nq] = {0}, qs[Nq] = {0}, qt[Nq] = {0};
            for (int m = 0; m < Nq; ++m) {
                const double qm = qe[k * Nq * Nq + j * Nq + m];
                const double dj = D[j * Nq + m], dk = D[k * Nq + m];
                for (int i = 0; i < Nq; ++i) {
                    qr[i] += Dt[m][i] * qm;
                    qs[i] += dj * qe[k * Nq * Nq + m * Nq + i];
                    qt[i] += dk * qe[m * Nq * Nq + j * Nq + i];
                }
            }
            const int n = k * Nq * Nq + j * Nq;
            for (int i = 0; i < Nq; ++i) {
                const double *g = ge + n + i;
                gr[n + i] = g[0] * qr[i] + g[Np] * qs[i] + g[2 * Np] * qt[i];
                gs[n + i] = g[Np] * qr[i] + g[3 * Np] * qs[i] + g[4 * Np] * qt[i];
                gt[n + i] = g[2 * Np] * qr[i] + g[4 * Np] * qs[i] + g[5 * Np] * qt[i];
            }
        }
    for (int k = 0; k < Nq; ++k)
        for (int j = 0; j < Nq; ++j) {
            double r[Nq] = {0};
            for (int m = 0; m < Nq; ++m) {
                const double dj = D[m * Nq + j], dk = D[m * Nq + k];
                const double grm = gr[k * Nq * Nq + j * Nq + m];
                for (int i = 0; i < Nq; ++i)
                    r[i] += D[m * Nq + i] * grm + dj * gs[k * Nq * Nq + m * Nq + i] +
                            dk * gt[m * Nq * Nq + j * Nq + i];
            }
            for (int i = 0; i < Nq; ++i)
                Aq[(size_t)e * Np + k * Nq * Nq + j * Nq + i] = r[i];
        }
}

extern "C" void axhex_native(void *const *args)
{
    enum { Nq = 8, Np = Nq * Nq * Nq };
    const int E = ARG(int, 0);
    const double *__restrict__ G = ARG(double *, 1);
    const double *__restrict__ D = ARG(double *, 2);
    const double *__restrict__ q = ARG(double *, 3);
    double *__restrict__ Aq = ARG(double *, 4);
    double Dt[Nq][Nq];    // Dt[m][i] = D[i][m]
    for (int i = 0; i < Nq; ++i)
        for (int m = 0; m < Nq; ++m)
            Dt[m][i] = D[i * Nq + m];
#pragma omp parallel for schedule(static)
    for (int e = 0; e < E; ++e)
        axhex_element(e, Dt, G, D, q, Aq);
}

// hist[v] += the number of bytes of data equal to v: per thread, four
// private histograms (consecutive bytes go to different ones, so that a run
// of equal bytes does not make each increment wait for the previous one's
// store), over a contiguous share of the data; summed and added in at the end.
extern "C" void histogram_native(void *const *args)
{
    const int n = ARG(int, 0);
    const unsigned char *__restrict__ data = ARG(unsigned char *, 1);
    unsigned int *__restrict__ hist = ARG(unsigned int *, 2);
    const int quads = n / 4;
#pragma omp parallel
    {
        unsigned int h[4][256];
        memset(h, 0, sizeof h);
#pragma omp for schedule(static) nowait
        for (int q = 0; q < quads; ++q) {
            const unsigned char *p = data + 4 * (size_t)q;
            h[0][p[0]]++;
            h[1][p[1]]++;
            h[2][p[2]]++;
            h[3][p[3]]++;
        }
#pragma omp single nowait
        for (int i = 4 * quads; i < n; ++i)
            h[0][data[i]]++;
        for (int v = 0; v < 256; ++v) {
            const unsigned int count = h[0][v] + h[1][v] + h[2][v] + h[3][v];
#pragma omp atomic update
            hist[v] += count;
        }
    }
}
