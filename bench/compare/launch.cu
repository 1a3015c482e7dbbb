// bench/compare/launch.cu - the yardstick of bench_launch's launch figures:
// the same tiny kernel launched by hand with the CUDA runtime API, timed the
// same way ("queued": -n launches in a row, then one wait; "round trip": a
// launch and a wait). Beside the runtime's <<<>>>, the same kernel through
// the driver's cuLaunchKernel, alone and after cuCtxSetCurrent (as the
// runtime of oklc launches: it makes the primary context current first, so
// that any thread may launch), in three alternating rounds: which part of a
// launch costs what, in one process. Built and run by bench/gpu-launch.sh
// with nvcc (-lcuda). It
// also prints the device's copy ceiling, cudaMemcpy from device to device
// of 1 GiB (bytes read plus bytes written, over the median of 20 copies),
// the figure bench_compare's copy kernel is measured against.
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define LANES 32

extern "C" __global__ void tiny(const int n, float *x)
{
    int t = threadIdx.x;
    if (t < n) x[t] += 1.0f;
}

static void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        std::fprintf(stderr, "launch.cu: %s: %s\n", what, cudaGetErrorString(e));
        std::exit(2);
    }
}

static void check_cu(CUresult e, const char *what)
{
    if (e != CUDA_SUCCESS) {
        const char *msg = "?";
        cuGetErrorString(e, &msg);
        std::fprintf(stderr, "launch.cu: %s: %s\n", what, msg);
        std::exit(2);
    }
}

static double now_ms()
{
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

int main(int argc, char **argv)
{
    int launches = argc > 1 ? std::atoi(argv[1]) : 20000;
    if (launches < 10) {
        std::fputs("usage: launch [LAUNCHES (>= 10)]\n", stderr);
        return 2;
    }
    float *x;
    check(cudaMalloc(&x, LANES * sizeof(float)), "cudaMalloc");
    check(cudaMemset(x, 0, LANES * sizeof(float)), "cudaMemset");
    tiny<<<1, LANES>>>(LANES, x);    // warm-up: module load
    check(cudaDeviceSynchronize(), "warm-up");
    CUfunction f;
    CUcontext ctx;
    check(cudaGetFuncBySymbol(&f, (const void *)tiny), "cudaGetFuncBySymbol");
    check_cu(cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
    int n = LANES;
    void *args[] = {&n, &x};
    enum { RUNTIME, DRIVER, DRIVER_SELECT };
    auto launch = [&](int how) {
        if (how == RUNTIME) {
            tiny<<<1, LANES>>>(LANES, x);
            return;
        }
        if (how == DRIVER_SELECT)
            check_cu(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
        check_cu(cuLaunchKernel(f, 1, 1, 1, LANES, 1, 1, 0, 0, args, nullptr), "cuLaunchKernel");
    };
    const char *names[] = {"CUDA runtime", "cuLaunchKernel", "+ctx select"};
    int trips = launches / 10, runs = 1;
    for (int round = 0; round < 3; round++)
        for (int how = RUNTIME; how <= DRIVER_SELECT; how++) {
            double t0 = now_ms();
            for (int i = 0; i < launches; i++)
                launch(how);
            check(cudaDeviceSynchronize(), "queued");
            double t1 = now_ms();
            for (int i = 0; i < trips; i++) {
                launch(how);
                check(cudaDeviceSynchronize(), "round trip");
            }
            double t2 = now_ms();
            runs += launches + trips;
            std::printf("%-14s queued %7.2f us/launch   round trip %7.2f us   (round %d)\n",
                        names[how], (t1 - t0) * 1e3 / launches, (t2 - t1) * 1e3 / trips,
                        round + 1);
        }
    float got[LANES];
    check(cudaMemcpy(got, x, sizeof got, cudaMemcpyDeviceToHost), "cudaMemcpy");
    for (int i = 0; i < LANES; i++)
        if (got[i] != (float)runs) {
            std::fprintf(stderr, "launch.cu: x[%d] = %g\n", i, got[i]);
            return 2;
        }
    check(cudaFree(x), "cudaFree");

    const size_t bytes = size_t(1) << 30;
    char *a, *b;
    check(cudaMalloc(&a, bytes), "cudaMalloc");
    check(cudaMalloc(&b, bytes), "cudaMalloc");
    check(cudaMemset(a, 1, bytes), "cudaMemset");
    cudaEvent_t e0, e1;
    check(cudaEventCreate(&e0), "cudaEventCreate");
    check(cudaEventCreate(&e1), "cudaEventCreate");
    std::vector<float> ms;
    for (int i = 0; i < 21; i++) {
        check(cudaEventRecord(e0), "cudaEventRecord");
        check(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy");
        check(cudaEventRecord(e1), "cudaEventRecord");
        check(cudaEventSynchronize(e1), "cudaEventSynchronize");
        float t;
        check(cudaEventElapsedTime(&t, e0, e1), "cudaEventElapsedTime");
        if (i)    // the first is a warm-up
            ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%-12s cudaMemcpy device to device, 1 GiB: %.0f GB/s (read + written)\n",
                "copy ceiling", 2.0 * bytes / (ms[ms.size() / 2] * 1e-3) * 1e-9);
    return 0;
}
