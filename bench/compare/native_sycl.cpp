// bench/compare/native_sycl.cpp - the kernels of kernels.okl written by hand
// in SYCL 2020, as native.cu writes them in CUDA: one work-item per
// iteration of the @inner loops, the same work-group sizes, group barriers
// only where the data needs them, local memory for CUDA's __shared__.
// Built by the runtime as native source (oklc_props_okl false) on the dpcpp
// device, so with the same SYCL compiler and options as the generated
// code; each kernel K is the `K_run` entry the dpcpp device calls
// (src/runtime/dpcpp.c), with the grid bench.c sets
// (oklc_kernel_set_run_dims), x first.
//
// Each computes what its OKL twin computes, in the same order of floating
// point operations.
#include <sycl/sycl.hpp>

#include <cstdio>

namespace {

// argument i of the runtime's argument array: a pointer to its value
template <class T> T arg(void *const *args, int i) { return *static_cast<T *>(args[i]); }

// submits what `kernel(handler, range)` sets up on the queue; NULL or the
// exception's message
template <class K>
const char *launch(void *queue, const unsigned long *grid, const unsigned long *block, K kernel)
{
    static thread_local char message[512];
    try {
        const sycl::nd_range<3> range(
            sycl::range<3>(grid[2] * block[2], grid[1] * block[1], grid[0] * block[0]),
            sycl::range<3>(block[2], block[1], block[0]));
        static_cast<sycl::queue *>(queue)->submit(
            [&](sycl::handler &h) { kernel(h, range); });
        return nullptr;
    } catch (const std::exception &e) {
        std::snprintf(message, sizeof message, "%s", e.what());
        return message;
    }
}

using item = sycl::nd_item<3>;
inline void sync(const item &it) { sycl::group_barrier(it.get_group()); }
template <class T, int D> using local = sycl::local_accessor<T, D>;

} // namespace

#define RUN(name)                                                                          \
    extern "C" const char *name##_run(void *q, const unsigned long *g, const unsigned long *b, \
                                      void *const *a)

// b[i] = a[i]; work-groups of 256
RUN(copy_native)
{
    const int n = arg<int>(a, 0);
    const float *x = arg<const float *>(a, 1);
    float *y = arg<float *>(a, 2);
    return launch(q, g, b, [=](sycl::handler &h, const sycl::nd_range<3> &r) {
        h.parallel_for(r, [=](item it) {
            const int i = static_cast<int>(it.get_global_id(2));
            if (i < n)
                y[i] = x[i];
        });
    });
}

// a[i] = b[i] + s c[i]; work-groups of 256
RUN(triad_native)
{
    const int n = arg<int>(a, 0);
    const float s = arg<float>(a, 1);
    const float *bb = arg<const float *>(a, 2), *c = arg<const float *>(a, 3);
    float *aa = arg<float *>(a, 4);
    return launch(q, g, b, [=](sycl::handler &h, const sycl::nd_range<3> &r) {
        h.parallel_for(r, [=](item it) {
            const int i = static_cast<int>(it.get_global_id(2));
            if (i < n)
                aa[i] = bb[i] + s * c[i];
        });
    });
}

// copy and triad with 4 elements per work-item, 256 apart; work-groups of
// 256 items, 1024 elements
#define ILP 4
RUN(copy4_native)
{
    const int n = arg<int>(a, 0);
    const float *x = arg<const float *>(a, 1);
    float *y = arg<float *>(a, 2);
    return launch(q, g, b, [=](sycl::handler &h, const sycl::nd_range<3> &r) {
        h.parallel_for(r, [=](item it) {
            const int t = it.get_local_id(2), gr = it.get_group(2), bs = it.get_local_range(2);
            for (int k = 0; k < ILP; ++k) {
                const int i = (gr * ILP + k) * bs + t;
                if (i < n)
                    y[i] = x[i];
            }
        });
    });
}

RUN(triad4_native)
{
    const int n = arg<int>(a, 0);
    const float s = arg<float>(a, 1);
    const float *bb = arg<const float *>(a, 2), *c = arg<const float *>(a, 3);
    float *aa = arg<float *>(a, 4);
    return launch(q, g, b, [=](sycl::handler &h, const sycl::nd_range<3> &r) {
        h.parallel_for(r, [=](item it) {
            const int t = it.get_local_id(2), gr = it.get_group(2), bs = it.get_local_range(2);
            for (int k = 0; k < ILP; ++k) {
                const int i = (gr * ILP + k) * bs + t;
                if (i < n)
                    aa[i] = bb[i] + s * c[i];
            }
        });
    });
}

// partial[g] = the sum of x[256 g .. 256 g + 255], a tree in local memory
#define RB 256
RUN(blockSum_native)
{
    const int n = arg<int>(a, 0);
    const float *x = arg<const float *>(a, 1);
    float *partial = arg<float *>(a, 2);
    return launch(q, g, b, [=](sycl::handler &h, const sycl::nd_range<3> &r) {
        local<float, 1> s_x(RB, h);
        h.parallel_for(r, [=](item it) {
            const int t = it.get_local_id(2), gr = it.get_group(2), i = gr * RB + t;
            s_x[t] = i < n ? x[i] : 0.f;
            sync(it);
            for (int alive = RB / 2; alive > 0; alive /= 2) {
                if (t < alive)
                    s_x[t] += s_x[t + alive];
                sync(it);
            }
            if (t == 0)
                partial[gr] = s_x[0];
        });
    });
}

// partial[g] = the dot product over entries 4096 g .. 4096 g + 4095: each
// work-item a strided slice, then a tree in local memory; work-groups of 256
RUN(dot_native)
{
    const int n = arg<int>(a, 0);
    const float *x = arg<const float *>(a, 1), *y = arg<const float *>(a, 2);
    float *partial = arg<float *>(a, 3);
    return launch(q, g, b, [=](sycl::handler &h, const sycl::nd_range<3> &r) {
        local<float, 1> s(256, h);
        h.parallel_for(r, [=](item it) {
            const int t = it.get_local_id(2), begin = it.get_group(2) * 4096;
            const int end = begin + 4096 < n ? begin + 4096 : n;
            float acc = 0.f;
            for (int i = begin + t; i < end; i += 256)
                acc += x[i] * y[i];
            s[t] = acc;
            sync(it);
            for (int k = 128; k > 0; k /= 2) {
                if (t < k)
                    s[t] += s[t + k];
                sync(it);
            }
            if (t == 0)
                partial[it.get_group(2)] = s[0];
        });
    });
}

// one Jacobi sweep on the interior of an n x n grid; 16 x 16 work-groups
RUN(jacobi2d_native)
{
    const int n = arg<int>(a, 0);
    const float h2 = arg<float>(a, 1);
    const float *u = arg<const float *>(a, 2), *f = arg<const float *>(a, 3);
    float *unew = arg<float *>(a, 4);
    return launch(q, g, b, [=](sycl::handler &h, const sycl::nd_range<3> &r) {
        h.parallel_for(r, [=](item it) {
            const int x = static_cast<int>(it.get_global_id(2));
            const int y = static_cast<int>(it.get_global_id(1));
            if (x > 0 && y > 0 && x < n - 1 && y < n - 1) {
                const int id = y * n + x;
                unew[id] = 0.25f * (u[id - 1] + u[id + 1] + u[id - n] + u[id + n] + h2 * f[id]);
            }
        });
    });
}

// C = A B, 16 x 16 tiles in local memory (n a multiple of 16), in floats
// and in doubles
#define TM 16
template <typename T>
static const char *matmul_tiles(void *q, const unsigned long *g, const unsigned long *b,
                                void *const *a)
{
    const int n = arg<int>(a, 0);
    const T *A = arg<const T *>(a, 1), *B = arg<const T *>(a, 2);
    T *C = arg<T *>(a, 3);
    return launch(q, g, b, [=](sycl::handler &h, const sycl::nd_range<3> &r) {
        local<T, 2> s_A(sycl::range<2>(TM, TM), h), s_B(sycl::range<2>(TM, TM), h);
        h.parallel_for(r, [=](item it) {
            const int tx = it.get_local_id(2), ty = it.get_local_id(1);
            const int row = it.get_group(1) * TM + ty, col = it.get_group(2) * TM + tx;
            T c = 0;
            for (int kt = 0; kt < n; kt += TM) {
                s_A[ty][tx] = A[row * n + kt + tx];
                s_B[ty][tx] = B[(kt + ty) * n + col];
                sync(it);
#pragma unroll
                for (int k = 0; k < TM; ++k)
                    c += s_A[ty][k] * s_B[k][tx];
                sync(it);
            }
            C[row * n + col] = c;
        });
    });
}

RUN(matmul_native)
{
    return matmul_tiles<float>(q, g, b, a);
}

RUN(matmul64_native)
{
    return matmul_tiles<double>(q, g, b, a);
}

// spectral-element gradient, Nq = 8: a work-group of 8 x 8 per element,
// u's column along k in registers, one k-plane at a time in local memory
#define NQ 8
#define NP (NQ * NQ * NQ)
RUN(gradient_native)
{
    const double *D = arg<const double *>(a, 1), *u = arg<const double *>(a, 2);
    double *gradu = arg<double *>(a, 3);
    return launch(q, g, b, [=](sycl::handler &h, const sycl::nd_range<3> &r) {
        local<double, 2> s_D(sycl::range<2>(NQ, NQ), h), s_u(sycl::range<2>(NQ, NQ), h);
        h.parallel_for(r, [=](item it) {
            double r_u[NQ];
            const int e = it.get_group(2), i = it.get_local_id(2), j = it.get_local_id(1);
            s_D[j][i] = D[j * NQ + i];
#pragma unroll
            for (int k = 0; k < NQ; ++k)
                r_u[k] = u[e * NP + k * NQ * NQ + j * NQ + i];
#pragma unroll
            for (int k = 0; k < NQ; ++k) {
                sync(it);    // the previous plane is used up
                s_u[j][i] = r_u[k];
                sync(it);
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
        });
    });
}

// spectral-element Poisson operator (kernels.okl: axhex), Nq = 8: a
// work-group of 8 x 8 per element, the element and its derivatives in local
// memory, columns along k in registers
RUN(axhex_native)
{
    const double *G = arg<const double *>(a, 1), *D = arg<const double *>(a, 2);
    const double *qq = arg<const double *>(a, 3);
    double *Aq = arg<double *>(a, 4);
    return launch(q, g, b, [=](sycl::handler &h, const sycl::nd_range<3> &r) {
        local<double, 2> s_D(sycl::range<2>(NQ, NQ), h);
        local<double, 3> s_q(sycl::range<3>(NQ, NQ, NQ), h), s_Gqr(sycl::range<3>(NQ, NQ, NQ), h),
            s_Gqs(sycl::range<3>(NQ, NQ, NQ), h);
        h.parallel_for(r, [=](item it) {
            double r_q[NQ], r_Aq[NQ];
            const int e = it.get_group(2), i = it.get_local_id(2), j = it.get_local_id(1);
            s_D[j][i] = D[j * NQ + i];
            for (int k = 0; k < NQ; ++k) {
                const double qn = qq[e * NP + k * NQ * NQ + j * NQ + i];
                s_q[k][j][i] = qn;
                r_q[k] = qn;
                r_Aq[k] = 0;
            }
            sync(it);
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
            sync(it);
            for (int k = 0; k < NQ; ++k) {
                double v = r_Aq[k];
                for (int m = 0; m < NQ; ++m)
                    v += s_D[m][i] * s_Gqr[k][j][m] + s_D[m][j] * s_Gqs[k][m][i];
                Aq[e * NP + k * NQ * NQ + j * NQ + i] = v;
            }
        });
    });
}

// hist[v] += the number of bytes equal to v: a local histogram per
// work-group of 256 over a chunk of HC bytes, then one atomic add per bin
#define HB 256
#define HC (256 * 64)
RUN(histogram_native)
{
    const int n = arg<int>(a, 0);
    const unsigned char *data = arg<const unsigned char *>(a, 1);
    unsigned int *hist = arg<unsigned int *>(a, 2);
    return launch(q, g, b, [=](sycl::handler &h, const sycl::nd_range<3> &r) {
        local<unsigned int, 1> s_h(HB, h);
        h.parallel_for(r, [=](item it) {
            using sycl::memory_order, sycl::memory_scope, sycl::access::address_space;
            const int t = it.get_local_id(2), gr = it.get_group(2);
            s_h[t] = 0;
            sync(it);
            const int end = (gr + 1) * HC < n ? (gr + 1) * HC : n;
            for (int i = gr * HC + t; i < end; i += HB)
                sycl::atomic_ref<unsigned int, memory_order::relaxed, memory_scope::work_group,
                                 address_space::local_space>(s_h[data[i]])
                    .fetch_add(1u);
            sync(it);
            sycl::atomic_ref<unsigned int, memory_order::relaxed, memory_scope::device,
                             address_space::global_space>(hist[t])
                .fetch_add(s_h[t]);
        });
    });
}
