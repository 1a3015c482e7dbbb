/*
 * pch.c - the prelude, precompiled.
 *
 * Every kernel's parse starts with include/oklc/okl.hpp, the same text for
 * every kernel of a backend: Clang's precompiled header of it saves that
 * part of each parse. The headers live in a folder the caller names
 * (oklc_set_pch_dir; the command and the runtime use "pch" in the kernel
 * cache), one per prelude, Clang version and Clang arguments, named
 * "<key>-<sum>.pch": the key is a hash of what made it, the sum a hash of
 * the file's bytes, checked before Clang reads it, so a truncated or
 * garbled file is deleted and made again, never parsed. A header is
 * written under a temporary name and renamed: processes that make one at
 * once each publish a whole file. Like the kernel cache, a folder that
 * another user owns or others may write is not used (Clang would read what
 * they put there). Whatever fails, the kernel is parsed from the prelude's
 * text, as without a folder.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "cx.h"

enum { PATH_CAP = 4096 };

static void hex128(XXH128_hash_t h, char out[33])
{
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)h.high64,
             (unsigned long long)h.low64);
}

/* The hash of a file's bytes (false if it cannot be read). No allocation:
 * a libclang translation unit may be alive. */
static bool file_sum(const char *path, char out[33])
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    XXH3_state_t st;
    XXH3_128bits_reset(&st);
    char buf[65536];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        XXH3_128bits_update(&st, buf, (size_t)n);
    close(fd);
    if (n < 0)
        return false;
    hex128(XXH3_128bits_digest(&st), out);
    return true;
}

/* The folder, made if missing; not one another user could write into. */
static bool usable_folder(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0 && (errno != ENOENT || mkdir(dir, 0700) != 0 || stat(dir, &st) != 0))
        return false;
    return S_ISDIR(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & (S_IWGRP | S_IWOTH));
}

/* A header of this key whose bytes match its name; a bad one is removed. */
static bool find(const char *dir, const char *key, char path[PATH_CAP])
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool found = false;
    size_t kn = strlen(key);
    for (struct dirent *e; !found && (e = readdir(d));) {
        const char *n = e->d_name;
        if (strncmp(n, key, kn) || n[kn] != '-' || strlen(n) != kn + 1 + 32 + 4 ||
            strcmp(n + kn + 33, ".pch"))
            continue;
        char sum[33];
        snprintf(path, PATH_CAP, "%s/%s", dir, n);
        if (file_sum(path, sum) && !strncmp(sum, n + kn + 1, 32))
            found = true;
        else
            unlink(path);
    }
    closedir(d);
    return found;
}

/* Parses the prelude alone as a header and saves it: args are the
 * kernel's, less "-include <prelude>", with "-x c++-header". */
static bool make(const char *dir, const char *key, const char *const *args, int nargs,
                 struct CXUnsavedFile *prelude, char path[PATH_CAP])
{
    char tmp[PATH_CAP], sum[33];
    snprintf(tmp, sizeof tmp, "%s/%s.tmp.%ld", dir, key, (long)getpid());
    CXIndex index = clang_createIndex(0, 0);
    CXTranslationUnit tu = NULL;
    enum CXErrorCode err = clang_parseTranslationUnit2(
        index, prelude->Filename, args, nargs, prelude, 1,
        CXTranslationUnit_ForSerialization | CXTranslationUnit_Incomplete, &tu);
    bool ok = err == CXError_Success && tu;
    for (unsigned i = 0; ok && i < clang_getNumDiagnostics(tu); i++) {
        CXDiagnostic d = clang_getDiagnostic(tu, i);
        ok = clang_getDiagnosticSeverity(d) < CXDiagnostic_Error;
        clang_disposeDiagnostic(d);
    }
    ok = ok && clang_saveTranslationUnit(tu, tmp, clang_defaultSaveOptions(tu)) == CXSaveError_None;
    if (tu)
        clang_disposeTranslationUnit(tu);
    clang_disposeIndex(index);
    ok = ok && file_sum(tmp, sum);
    snprintf(path, PATH_CAP, "%s/%s-%s.pch", dir, key, sum);
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return false;
    }
    return true;
}

const char *oklc_pch_for(oklc_ctx *c, const char *const *args, size_t nargs,
                         struct CXUnsavedFile *prelude)
{
    if (!c->pch_dir || nargs > 250 || !usable_folder(c->pch_dir))
        return NULL;
    /* the key: libclang's version, the prelude, the arguments */
    XXH3_state_t st;
    XXH3_128bits_reset(&st);
    CXString v = clang_getClangVersion();
    const char *vs = clang_getCString(v);
    XXH3_128bits_update(&st, vs ? vs : "", vs ? strlen(vs) + 1 : 0);
    clang_disposeString(v);
    XXH3_128bits_update(&st, prelude->Contents, prelude->Length);
    for (size_t i = 0; i < nargs; i++)
        XXH3_128bits_update(&st, args[i], strlen(args[i]) + 1);
    char key[33], path[PATH_CAP];
    hex128(XXH3_128bits_digest(&st), key);
    if (find(c->pch_dir, key, path))
        return oklc_arena_strdup(&c->arena, path);
    /* a header: the same arguments, the prelude as the file */
    const char *hargs[256];
    int n = 0;
    for (size_t i = 0; i < nargs; i++) {
        if (!strcmp(args[i], "-include") && i + 1 < nargs &&
            !strcmp(args[i + 1], prelude->Filename)) {
            i++;
            continue;
        }
        hargs[n++] = !strcmp(args[i], "c++") && i && !strcmp(args[i - 1], "-x") ? "c++-header"
                                                                                 : args[i];
    }
    if (!make(c->pch_dir, key, hargs, n, prelude, path))
        return NULL;
    return oklc_arena_strdup(&c->arena, path);
}
