/*
 * together.c - one process using several devices at once, as a program
 * that moves from the CPU to a GPU does: each device named on the command
 * line is opened, builds and runs an OKL kernel (checked), and stays open
 * while the next is used; then all are closed and the process exits. The
 * vendors' libraries live side by side in the process until its end, some
 * in link-map namespaces of their own (src/runtime/dl.c): the exit must be
 * clean too. A device that is not here (OKLC_ERR_UNAVAILABLE, or an OpenCL
 * platform asked for by a name none has) is skipped with a note.
 * Usage: together DEVICE...   Exit status 0 when every device that opened
 * computed the right values; 1 otherwise.
 */
#include <stdio.h>

#include "oklc/runtime.h"

enum { N = 1000, MAX = 8 };

static const char okl[] =
    "@kernel void twice(const int n, const float *a, float *b) {\n"
    "  for (int i = 0; i < n; ++i; @tile(64, @outer, @inner)) b[i] = 2 * a[i];\n"
    "}\n";

static int use(oklc_device *d)
{
    float a[N], b[N];
    for (int i = 0; i < N; i++)
        a[i] = (float)i;
    oklc_kernel *k = NULL;
    oklc_memory *ma = NULL, *mb = NULL;
    oklc_status st = oklc_kernel_build_string(d, "twice.okl", okl, "twice", NULL, &k);
    if (!st)
        st = oklc_memory_alloc(d, sizeof a, &ma);
    if (!st)
        st = oklc_memory_alloc(d, sizeof b, &mb);
    if (!st)
        st = oklc_memory_copy_from_host(ma, a, sizeof a, 0);
    oklc_arg args[] = {oklc_arg_int(N), oklc_arg_mem(ma), oklc_arg_mem(mb)};
    if (!st)
        st = oklc_kernel_run(k, 3, args);
    if (!st)
        st = oklc_memory_copy_to_host(mb, b, sizeof b, 0);
    int bad = st != OKLC_OK;
    if (bad)
        fprintf(stderr, "together: %s: %s: %s\n", oklc_device_mode(d), oklc_status_name(st),
                oklc_last_error());
    for (int i = 0; !bad && i < N; i++)
        if (b[i] != 2.0f * (float)i) {
            fprintf(stderr, "together: %s: b[%d] = %g, not %g\n", oklc_device_mode(d), i, b[i],
                    2.0 * i);
            bad = 1;
        }
    oklc_memory_free(ma);
    oklc_memory_free(mb);
    oklc_kernel_free(k);
    return bad;
}

int main(int argc, char **argv)
{
    oklc_device *open[MAX];
    int n = 0, bad = 0;
    for (int i = 1; i < argc && n < MAX; i++) {
        oklc_status st = oklc_device_open(argv[i], &open[n]);
        if (st == OKLC_ERR_UNAVAILABLE || st == OKLC_ERR_ARGUMENT) {
            printf("(%s: %s)\n", argv[i], oklc_last_error());
            continue;
        }
        if (st) {
            fprintf(stderr, "together: %s: %s\n", argv[i], oklc_last_error());
            return 1;
        }
        bad |= use(open[n]);
        printf("%s: %s\n", argv[i], bad ? "wrong" : "right");
        n++;
    }
    while (n--)
        oklc_device_close(open[n]);
    return bad;
}
