/*
 * streams: two halves of a vector sum, each in a stream of its own: the
 * copies in, the kernel and the copy out are queued in order in each
 * stream, and the two streams' work may overlap (a copy of one while the
 * other's kernel runs). Events time each stream's work.
 *
 *     streams [DEVICE]           DEVICE: "serial" (default), "openmp", "opencl", ...
 */
#include <stdio.h>
#include <stdlib.h>

#include "oklc/runtime.h"

#ifndef KERNELS
#define KERNELS "examples/kernels"
#endif

enum { HALF = 1 << 19 };

static int fail(const char *what)
{
    fprintf(stderr, "streams: %s: %s\n", what, oklc_last_error());
    return 1;
}

int main(int argc, char **argv)
{
    const char *spec = argc > 1 ? argv[1] : "serial";
    oklc_device *dev;
    if (oklc_device_open(spec, &dev))
        return fail("opening the device");
    printf("device: %s (from \"%s\")\n", oklc_device_mode(dev), spec);

    /* page-locked host memory: what asynchronous copies want on GPUs */
    float *host[2][3];
    oklc_memory *mem[2][3];
    oklc_stream *stream[2];
    for (int s = 0; s < 2; s++) {
        for (int v = 0; v < 3; v++)
            if (oklc_host_alloc(dev, HALF * sizeof(float), (void **)&host[s][v]) ||
                oklc_memory_alloc(dev, HALF * sizeof(float), &mem[s][v]))
                return fail("allocating memory");
        for (int i = 0; i < HALF; i++) {
            host[s][0][i] = (float)(s * HALF + i);
            host[s][1][i] = 1.0f - (float)(s * HALF + i);
            host[s][2][i] = 0;
        }
        if (oklc_stream_create(dev, &stream[s]))
            return fail("creating a stream");
    }
    oklc_kernel *add;
    if (oklc_kernel_build(dev, KERNELS "/addVectors.okl", "addVectors", NULL, &add))
        return fail("building addVectors");

    oklc_event *start[2], *end[2];
    for (int s = 0; s < 2; s++) {
        oklc_device_set_stream(dev, stream[s]);    /* what follows goes to stream s */
        oklc_arg args[] = {oklc_arg_int(HALF), oklc_arg_mem(mem[s][0]), oklc_arg_mem(mem[s][1]),
                           oklc_arg_mem(mem[s][2])};
        if (oklc_event_record(dev, &start[s]) ||
            oklc_memory_copy_from_host_async(mem[s][0], host[s][0], HALF * sizeof(float), 0) ||
            oklc_memory_copy_from_host_async(mem[s][1], host[s][1], HALF * sizeof(float), 0) ||
            oklc_kernel_run(add, 4, args) ||
            oklc_memory_copy_to_host_async(mem[s][2], host[s][2], HALF * sizeof(float), 0) ||
            oklc_event_record(dev, &end[s]))
            return fail("queuing work");
    }
    oklc_device_set_stream(dev, NULL);
    if (oklc_device_finish(dev))    /* every stream */
        return fail("finishing");

    int wrong = 0;
    for (int s = 0; s < 2; s++) {
        double seconds;
        if (oklc_event_elapsed(start[s], end[s], &seconds))
            return fail("timing");
        for (int i = 0; i < HALF; i++)
            wrong += host[s][2][i] != 1.0f;
        printf("stream %d: %d entries, copies and kernel in %.3f ms\n", s, HALF, seconds * 1e3);
    }
    printf("result: %s\n", wrong ? "WRONG" : "correct (every entry is 1)");

    for (int s = 0; s < 2; s++) {
        oklc_event_free(start[s]);
        oklc_event_free(end[s]);
        oklc_stream_free(stream[s]);
        for (int v = 0; v < 3; v++) {
            oklc_memory_free(mem[s][v]);
            oklc_host_free(dev, host[s][v]);
        }
    }
    oklc_kernel_free(add);
    oklc_device_close(dev);
    return wrong != 0;
}
