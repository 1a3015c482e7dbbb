/*
 * dl.c - vendor libraries (the OpenCL ICD loader, the CUDA driver, NVRTC,
 * HIP, hiprtc) opened with dlopen, so that one build of oklc runs on
 * machines with and without them: a missing library makes its device
 * OKLC_ERR_UNAVAILABLE, nothing more.
 *
 * A library is opened on first use and stays open for the process (drivers
 * start threads that live in their code). A load that failed is tried
 * again on the next use. Symbols land in a table of function pointers,
 * each by memcpy from dlsym's void * (POSIX guarantees the representation;
 * ISO C forbids the cast).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "rt.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

bool oklc_rt_dl_symbol(void *handle, const char *name, void *fn)
{
    void *p = dlsym(handle, name);
    memcpy(fn, &p, sizeof p);
    return p != NULL;
}

/* Every symbol of the table, or the name of the first one missing. */
static const char *fill(void *handle, const DlSym *syms, size_t nsyms, void *table)
{
    for (size_t i = 0; i < nsyms; i++) {
        if (!oklc_rt_dl_symbol(handle, syms[i].name, (char *)table + syms[i].offset) &&
            !syms[i].optional)
            return syms[i].name;
    }
    return NULL;
}

/* The first name that loads with every symbol; else why the first failed. */
static oklc_status load(DlLib *lib, const char *const *names, size_t nnames, const DlSym *syms,
                        size_t nsyms, void *table)
{
    char *why = NULL;
    for (size_t i = 0; i < nnames; i++) {
        dlerror();
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        const char *missing = h ? fill(h, syms, nsyms, table) : NULL;
        if (h && !missing) {
            oklc_free(why);
            lib->handle = h;
            lib->loaded = true;
            return OKLC_OK;
        }
        if (!why) {
            const char *e = h ? NULL : dlerror();
            why = h ? oklc_rt_format("'%s' has no %s (too old?)", names[i], missing)
                    : oklc_rt_strdup(e ? e : names[i]);
            if (!why) {
                if (h)
                    dlclose(h);
                return oklc_rt_oom();
            }
        }
        if (h)
            dlclose(h);
    }
    oklc_status st = oklc_rt_fail(OKLC_ERR_UNAVAILABLE, "cannot load %s: %s", lib->what,
                                  why ? why : "no library name");
    oklc_free(why);
    return st;
}

oklc_status oklc_rt_dl_load(DlLib *lib, const char *const *names, size_t nnames,
                            const DlSym *syms, size_t nsyms, void *table)
{
    pthread_mutex_lock(&lock);
    oklc_status st = lib->loaded ? OKLC_OK : load(lib, names, nnames, syms, nsyms, table);
    pthread_mutex_unlock(&lock);
    return st;
}
