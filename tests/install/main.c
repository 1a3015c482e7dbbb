/* main.c - addvec_run() in a program: main KERNEL.okl [DEVICE] */
#include <stdio.h>

int addvec_run(const char *okl, const char *spec);

int main(int argc, char **argv)
{
    if (argc < 2)
        return fprintf(stderr, "usage: %s KERNEL.okl [DEVICE]\n", argv[0]), 2;
    return addvec_run(argv[1], argc > 2 ? argv[2] : "serial");
}
