/*
 * dlopen.c - a shared object linked with liboklc.so (libaddvec.so, from
 * addvec.c), opened at run time as a plugin would be, its addvec_run() run:
 * dlopen LIBADDVEC.so KERNEL.okl [DEVICE]
 */
#include <dlfcn.h>
#include <stdio.h>

typedef int addvec_fn(const char *okl, const char *spec);

int main(int argc, char **argv)
{
    if (argc < 3)
        return fprintf(stderr, "usage: %s LIB.so KERNEL.okl [DEVICE]\n", argv[0]), 2;
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return fprintf(stderr, "dlopen: %s\n", dlerror()), 1;
    addvec_fn *run;
    *(void **)&run = dlsym(h, "addvec_run");
    if (!run)
        return fprintf(stderr, "dlsym: %s\n", dlerror()), 1;
    int rc = run(argv[2], argc > 3 ? argv[3] : "serial");
    /* Not closed: after dlclose(h) LeakSanitizer reports one allocation
     * (about 870 bytes, the runtime's per-thread state, freed at exit only)
     * that it can no longer name. */
    (void)h;
    return rc;
}
