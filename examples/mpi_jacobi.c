/*
 * mpi_jacobi: a distributed Jacobi solve of Laplace's equation on an
 * NX x NY grid (1 on the top boundary, 0 elsewhere), the rows split among
 * the MPI ranks, each rank on a device of its own. Each sweep exchanges
 * the slabs' edge rows with the neighbouring ranks: MPI reads and writes
 * the device memory itself where it can (host memory on serial and OpenMP
 * devices: the raw pointers of views of the rows), else through host
 * buffers. All ranks build the kernel at once into one cache: the first to
 * finish publishes it, the others use it or theirs (no locks). Rank 0
 * prints a checksum of the solution, which the same run on one rank gives
 * too (ctest: example.mpi_jacobi.*).
 *
 *     mpirun -np 4 mpi_jacobi [DEVICE]     DEVICE: serial (default), openmp, opencl, ...
 */
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>    /* Open MPI: MPIX_Query_cuda_support */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oklc/runtime.h"

#ifndef KERNELS
#define KERNELS "examples/kernels"
#endif

enum { NX = 128, NY = 96, SWEEPS = 300 };

static int fail(int rank, const char *what)
{
    fprintf(stderr, "mpi_jacobi (rank %d): %s: %s\n", rank, what, oklc_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
}

typedef struct Slab {
    int          rank, size, ny;    /* ny rows of this rank */
    oklc_device *dev;
    oklc_memory *u[2];              /* (ny + 2) x (NX + 2), the ghost rows included */
    bool         direct;            /* MPI on the device memory itself */
    double      *buf[4];            /* else: send up, send down, receive up, down */
} Slab;

/* Where row j of the slab starts (0 and ny + 1: the ghost rows). */
static size_t row_at(int j)
{
    return (size_t)j * (NX + 2) * sizeof(double);
}

/* The ghost rows from the neighbours: row 1 goes up (to rank - 1's
 * bottom ghost), row ny down (to rank + 1's top ghost). MPI reads and
 * writes device memory at its raw address where it is host memory (a view
 * of the row gives it), else the rows go through host buffers. */
static void exchange(Slab *s, oklc_memory *u)
{
    int up = s->rank > 0 ? s->rank - 1 : MPI_PROC_NULL;
    int down = s->rank < s->size - 1 ? s->rank + 1 : MPI_PROC_NULL;
    int send[2] = {1, s->ny}, recv[2] = {0, s->ny + 1}, peer[2] = {up, down};
    size_t bytes = (NX + 2) * sizeof(double);
    for (int k = 0; k < 2; k++) {
        oklc_memory *out_row = NULL, *in_row = NULL;
        void *out = s->buf[k], *in = s->buf[2 + k];
        if (s->direct) {
            if (oklc_memory_view(u, row_at(send[k]), bytes, &out_row) ||
                oklc_memory_view(u, row_at(recv[k]), bytes, &in_row))
                fail(s->rank, "a view of a row");
            out = oklc_memory_ptr(out_row), in = oklc_memory_ptr(in_row);
        } else if (oklc_memory_copy_to_host(u, out, bytes, row_at(send[k]))) {
            fail(s->rank, "copying a row out");
        }
        /* to peer[k], from the same peer: its edge row arrives in our ghost */
        MPI_Sendrecv(out, NX + 2, MPI_DOUBLE, peer[k], k, in, NX + 2, MPI_DOUBLE, peer[k],
                     1 - k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (!s->direct && peer[k] != MPI_PROC_NULL &&
            oklc_memory_copy_from_host(u, in, bytes, row_at(recv[k])))
            fail(s->rank, "copying a row in");
        oklc_memory_free(out_row);
        oklc_memory_free(in_row);
    }
}

/* The device of this rank: a GPU's index by the node-local rank. */
static oklc_device *open_device(const char *spec, int rank)
{
    char with[128];
    const char *local = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    snprintf(with, sizeof with, "mode=%s device=%d", spec, local ? atoi(local) : rank);
    oklc_device *d;
    bool gpu = !strcmp(spec, "cuda") || !strcmp(spec, "hip");
    if (gpu && !oklc_device_open(with, &d))
        return d;
    if (oklc_device_open(spec, &d))
        fail(rank, "opening the device");
    return d;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    Slab s = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s.size);
    const char *spec = argc > 1 ? argv[1] : "serial";
    s.dev = open_device(spec, s.rank);
    const char *mode = oklc_device_mode(s.dev);
    s.direct = !strcmp(mode, "serial") || !strcmp(mode, "openmp");
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    /* a CUDA-aware MPI takes the CUdeviceptr of a view (GPU-aware exchange) */
    s.direct |= !strcmp(mode, "cuda") && MPIX_Query_cuda_support();
#endif
    int first = NY * s.rank / s.size;
    s.ny = NY * (s.rank + 1) / s.size - first;

    /* every rank builds at once into the shared cache */
    oklc_kernel *k;
    if (oklc_kernel_build(s.dev, KERNELS "/jacobi.okl", "jacobi", NULL, &k))
        return fail(s.rank, "building jacobi");
    size_t cells = (size_t)(s.ny + 2) * (NX + 2);
    double *host = calloc(cells, sizeof *host);
    for (int i = 0; i < 4; i++)
        s.buf[i] = malloc((NX + 2) * sizeof(double));
    if (!host || !s.buf[0] || !s.buf[1] || !s.buf[2] || !s.buf[3])
        return fail(s.rank, "host memory");
    if (s.rank == 0)    /* the top boundary: 1 */
        for (int i = 0; i < NX + 2; i++)
            host[i] = 1;
    for (int b = 0; b < 2; b++)
        if (oklc_memory_alloc_typed(s.dev, OKLC_TYPE_DOUBLE, cells, &s.u[b]) ||
            oklc_memory_copy_from_host(s.u[b], host, cells * sizeof(double), 0))
            return fail(s.rank, "device memory");

    double t = MPI_Wtime();
    for (int it = 0; it < SWEEPS; it++) {
        oklc_memory *u = s.u[it % 2], *unew = s.u[1 - it % 2];
        exchange(&s, u);
        oklc_arg args[] = {oklc_arg_int(NX), oklc_arg_int(s.ny), oklc_arg_mem(u),
                           oklc_arg_mem(unew)};
        if (oklc_kernel_run(k, 4, args) || oklc_device_finish(s.dev))
            return fail(s.rank, "a sweep");
    }
    t = MPI_Wtime() - t;

    if (oklc_memory_copy_to_host(s.u[SWEEPS % 2], host, cells * sizeof(double), 0))
        return fail(s.rank, "copying the solution");
    double mine = 0, sum = 0, weighted = 0, all_weighted = 0;
    for (int j = 1; j <= s.ny; j++)
        for (int i = 1; i <= NX; i++) {
            double v = host[(size_t)j * (NX + 2) + i];
            mine += v;
            weighted += v * (first + j) * i;
        }
    MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&weighted, &all_weighted, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (s.rank == 0) {
        printf("%d ranks on %s (%s exchange): %d sweeps of %dx%d in %.3f s\n", s.size, mode,
               s.direct ? "device memory to MPI directly" : "through the host", SWEEPS, NX, NY,
               t);
        printf("checksum %.12e %.12e\n", sum, all_weighted);
    }
    oklc_kernel_free(k);
    oklc_memory_free(s.u[0]);
    oklc_memory_free(s.u[1]);
    oklc_device_close(s.dev);
    free(host);
    for (int i = 0; i < 4; i++)
        free(s.buf[i]);
    MPI_Finalize();
    return 0;
}
