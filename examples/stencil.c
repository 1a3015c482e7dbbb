/*
 * stencil: Jacobi iterations of the 2D Laplace equation (kernels/stencil.okl)
 * on a grid whose left edge is held at 1, compared with the same steps
 * computed here in plain C.
 *
 *     stencil [DEVICE]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "oklc/runtime.h"

#ifndef KERNELS
#define KERNELS "examples/kernels"
#endif

static int fail(const char *what)
{
    fprintf(stderr, "stencil: %s: %s\n", what, oklc_last_error());
    return 1;
}

/* The same step on the host: u(x, y) is u[x + nx * y]. */
static void step(int nx, int ny, const float *in, float *out)
{
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++) {
            const int i = x + nx * y;
            if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
                out[i] = in[i];
            else
                out[i] = 0.25f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
        }
}

int main(int argc, char **argv)
{
    const char *spec = argc > 1 ? argv[1] : "serial";
    const int nx = 300, ny = 200, steps = 50;
    const size_t bytes = (size_t)nx * ny * sizeof(float);
    float *u = calloc((size_t)nx * ny, sizeof *u), *v = calloc((size_t)nx * ny, sizeof *v);
    float *host = calloc((size_t)nx * ny, sizeof *host), *tmp = calloc((size_t)nx * ny, sizeof *tmp);
    if (!u || !v || !host || !tmp)
        return fprintf(stderr, "stencil: out of memory\n"), 1;
    for (int y = 0; y < ny; y++)
        u[nx * y] = host[nx * y] = 1;

    oklc_device *dev;
    oklc_memory *o_u, *o_v;
    oklc_kernel *k;
    if (oklc_device_open(spec, &dev))
        return fail("opening the device");
    if (oklc_memory_alloc(dev, bytes, &o_u) || oklc_memory_alloc(dev, bytes, &o_v))
        return fail("allocating device memory");
    oklc_memory_copy_from_host(o_u, u, bytes, 0);
    oklc_memory_copy_from_host(o_v, v, bytes, 0);
    if (oklc_kernel_build(dev, KERNELS "/stencil.okl", "jacobi", NULL, &k))
        return fail("building jacobi");

    for (int s = 0; s < steps; s++) {
        oklc_arg args[] = {oklc_arg_int(nx), oklc_arg_int(ny), oklc_arg_mem(s % 2 ? o_v : o_u),
                           oklc_arg_mem(s % 2 ? o_u : o_v)};
        if (oklc_kernel_run(k, 4, args))
            return fail("running jacobi");
        step(nx, ny, s % 2 ? tmp : host, s % 2 ? host : tmp);
    }
    if (oklc_device_finish(dev))
        return fail("finishing");
    oklc_memory_copy_to_host(steps % 2 ? o_v : o_u, u, bytes, 0);
    const float *want = steps % 2 ? tmp : host;
    float worst = 0;
    for (int i = 0; i < nx * ny; i++)
        worst = fmaxf(worst, fabsf(u[i] - want[i]));

    printf("device: %s; %d Jacobi steps on a %d x %d grid\n", oklc_device_mode(dev), steps, nx, ny);
    printf("u(1, %d) = %g; largest difference from plain C: %g: %s\n", ny / 2, u[1 + nx * (ny / 2)],
           worst, worst <= 1e-6f ? "correct" : "WRONG");
    oklc_kernel_free(k);
    oklc_memory_free(o_u);
    oklc_memory_free(o_v);
    oklc_device_close(dev);
    free(u);
    free(v);
    free(host);
    free(tmp);
    return worst > 1e-6f;
}
