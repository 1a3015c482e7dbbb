/*
 * libclang.c - libclang loaded on first use (libclang.h): dlopen'ed with
 * RTLD_LOCAL (its LLVM's symbols stay its own), every function of
 * OKLC_LIBCLANG found with dlsym, once per process.
 */
#define OKLC_LIBCLANG_LOADER
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libclang.h"

#ifndef OKLC_LIBCLANG_PATH
#define OKLC_LIBCLANG_PATH "libclang.so.1"
#endif

LibClang oklc_libclang;

static const struct {
    const char *name;
    size_t      offset;
} functions[] = {
#define X(f) {#f, offsetof(LibClang, f)},
    OKLC_LIBCLANG(X)
#undef X
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char reason[600];    /* why it did not load; "" when it did */

/* The file: OKLC_LIBCLANG, else the library the build linked against
 * (its absolute path), else its soname through the loader's path. */
static void *open_libclang(void)
{
    const char *env = getenv("OKLC_LIBCLANG");
    const char *names[] = {env && *env ? env : OKLC_LIBCLANG_PATH,
                           env && *env ? NULL : OKLC_LIBCLANG_SONAME};
    void *h = NULL;
    for (size_t i = 0; i < 2 && !h && names[i]; i++) {
        dlerror();
        h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!h)
            snprintf(reason, sizeof reason, "cannot load libclang (%s): %s%s", names[i],
                     dlerror(), env && *env ? " (from OKLC_LIBCLANG)" : "");
    }
    return h;
}

static void load(void)
{
    void *h = open_libclang();
    for (size_t i = 0; h && i < sizeof functions / sizeof *functions; i++) {
        void *p = dlsym(h, functions[i].name);
        if (!p) {
            snprintf(reason, sizeof reason, "libclang has no %s: a libclang older than "
                     "the one oklc was built with?", functions[i].name);
            memset(&oklc_libclang, 0, sizeof oklc_libclang);
            return;
        }
        memcpy((char *)&oklc_libclang + functions[i].offset, &p, sizeof p);
    }
    if (h)
        reason[0] = '\0';
}

bool oklc_libclang_load(const char **why)
{
    pthread_once(&once, load);
    *why = reason;
    return !reason[0];
}
