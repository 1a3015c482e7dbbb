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
 *
 * Libraries that bring their own LLVM (PoCL and most OpenCL drivers, HIP
 * through comgr) are opened in link-map namespaces of their own (dlmopen):
 * oklc itself links libclang, and two LLVMs in one namespace bind each
 * other's symbols (Debian 12's PoCL, built on LLVM 15, crashes in
 * clBuildProgram next to libclang 14; PoCL's clang and HIP's comgr
 * register the same LLVM options twice). One namespace per group of
 * libraries (HIP and hiprtc share one; the dpcpp device's SYCL support
 * library shares its own with the kernels it runs, which must reach the
 * same SYCL runtime: oklc_rt_dl_open_beside; AdaptiveCpp's gets none,
 * dpcpp.c's support_load says why). When dlmopen fails, or with
 * OKLC_DLMOPEN=0, they are opened as usual.
 *
 * A namespace has a C library of its own, whose environment is the
 * process's environ array as it was at dlmopen: a setenv in the process
 * may move that array and free it under the driver's getenv. So the
 * namespace gets a copy of its own, made once and kept: the driver sees
 * the environment of the moment its library was first loaded.
 *
 * A namespace's C library also sets up its per-thread state only for the
 * threads it sees start (and the one that loaded it): on any other thread
 * its ctype tables are NULL, and PoCL's first isspace() there crashed the
 * process. oklc_rt_dl_enter, called by every runtime function that may
 * reach a driver, runs each namespace's __ctype_init once per thread.
 */
#define _GNU_SOURCE    /* dlmopen, dlinfo */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

extern char **environ;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char **frozen[4];    /* the namespaces' environments (kept: never freed) */

/* The namespaces made so far, by group name, with their C library's
 * per-thread set-up; nspaces grows (atomically) once an entry is whole. */
static struct {
    const char *group;
    Lmid_t      id;
    void      (*ctype_init)(void);
} spaces[4];
static size_t nspaces;
static _Thread_local unsigned char entered[4];    /* this thread: set up in space i */

void oklc_rt_dl_enter(void)
{
    size_t n = __atomic_load_n(&nspaces, __ATOMIC_ACQUIRE);
    for (size_t i = 0; i < n; i++)
        if (!entered[i]) {
            entered[i] = 1;
            if (spaces[i].ctype_init)
                spaces[i].ctype_init();
        }
}

/* The namespace's own __ctype_init (glibc's; NULL elsewhere). */
static void (*ctype_init_of(Lmid_t id))(void)
{
    void *libc = dlmopen(id, "libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    void (*fn)(void) = NULL;
    if (libc) {
        oklc_rt_dl_symbol(libc, "__ctype_init", &fn);
        dlclose(libc);
    }
    return fn;
}

static bool isolation_wanted(void)
{
    const char *v = getenv("OKLC_DLMOPEN");
    return !v || strcmp(v, "0") != 0;
}

/* The environment of a new namespace: a copy (plain malloc: it lives as
 * long as the process); on failure the namespace keeps the one it has. */
static void freeze_environment(void *h, size_t i)
{
    char ***env = dlsym(h, "__environ");
    size_t n = 0;
    while (env && environ && environ[n])
        n++;
    char **copy = env ? malloc((n + 1) * sizeof *copy) : NULL;
    for (size_t j = 0; copy && j < n; j++) {
        if (!(copy[j] = strdup(environ[j]))) {
            while (j--)
                free(copy[j]);
            free(copy);
            return;
        }
    }
    if (!copy)
        return;
    copy[n] = NULL;
    frozen[i] = copy;
    *env = copy;
}

/* dlmopen into the group's namespace (a new one for a new group), else
 * dlopen. */
static void *open_library(const char *name, const char *group)
{
    if (group && isolation_wanted()) {
        size_t i = 0;
        while (i < nspaces && strcmp(spaces[i].group, group))
            i++;
        void *h = dlmopen(i < nspaces ? spaces[i].id : LM_ID_NEWLM, name, RTLD_NOW | RTLD_LOCAL);
        if (h && i == nspaces && i < OKLC_COUNTOF(spaces) &&
            dlinfo(h, RTLD_DI_LMID, &spaces[i].id) == 0) {
            spaces[i].group = group;
            spaces[i].ctype_init = ctype_init_of(spaces[i].id);
            entered[i] = 1;                /* dlmopen set this thread up */
            __atomic_store_n(&nspaces, nspaces + 1, __ATOMIC_RELEASE);
            freeze_environment(h, i);
        }
        if (h)
            return h;
    }
    return dlopen(name, RTLD_NOW | RTLD_LOCAL);
}

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
        void *h = open_library(names[i], lib->ns);
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

void *oklc_rt_dl_open(const char *path, const char *group)
{
    pthread_mutex_lock(&lock);
    dlerror();
    void *h = open_library(path, group);
    pthread_mutex_unlock(&lock);
    return h;
}

/* The namespace `beside` is in, whether or not dlmopen made it (a library
 * that fell back to dlopen is in the process's own). */
void *oklc_rt_dl_open_beside(void *beside, const char *path, int flags)
{
    Lmid_t id = LM_ID_BASE;
    dlerror();
    if (dlinfo(beside, RTLD_DI_LMID, &id) != 0 || id == LM_ID_BASE)
        return dlopen(path, RTLD_NOW | RTLD_LOCAL | flags);
    return dlmopen(id, path, RTLD_NOW | RTLD_LOCAL | flags);
}

char *oklc_rt_dl_file(void (*fn)(void))
{
    const void *address;
    memcpy(&address, &fn, sizeof address);    /* ISO C has no function-to-object cast */
    Dl_info info;
    if (!fn || !dladdr(address, &info) || !info.dli_fname || !*info.dli_fname)
        return NULL;
    return oklc_rt_absolute(info.dli_fname);
}

void oklc_rt_dl_swap(DlSwap *s, const char *path)
{
    s->path = path;
    /* Both fill one table: whichever loads next fills it again. */
    s->stand_in.loaded = false;
    s->vendor.loaded = false;
}

oklc_status oklc_rt_dl_load_swap(DlSwap *s)
{
    if (s->path)
        return oklc_rt_dl_load(&s->stand_in, &s->path, 1, s->syms, s->nsyms, s->table);
    return oklc_rt_dl_load(&s->vendor, s->names, s->nnames, s->syms, s->nsyms, s->table);
}
