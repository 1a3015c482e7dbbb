/*
 * cache.c - the kernel cache on disk: where it is, the key of a build, and
 * entries that appear whole or not at all.
 *
 * The folder is $OKLC_CACHE_DIR, else $XDG_CACHE_HOME/oklc, else
 * ~/.cache/oklc, created 0700; since oklc loads code from it, one owned by
 * another user or writable by others is refused. An entry is a folder named
 * by the key (source, binary, metadata.json, build.log; GPU-like devices:
 * the device binary, options.txt, and for OKL the launcher). It is built in
 * <key>.tmp.<pid>.<random> and renamed into place: rename is atomic, so
 * another process sees no entry or a whole one, without any lock (MPI
 * ranks build at once on shared file systems, where locks go stale). When
 * two processes build the same entry, the first rename wins and the other
 * process uses it. Temporary folders of killed processes are swept when
 * older than an hour.
 */
#include <dirent.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define XXH_INLINE_ALL    /* header only: no library to link */
#include <xxhash.h>

#include "rt.h"

/* The folder by the environment, before it is created. */
static oklc_status choose_root(char **dir)
{
    const char *env = getenv("OKLC_CACHE_DIR");
    if (env && *env)
        *dir = oklc_rt_strdup(env);
    else if ((env = getenv("XDG_CACHE_HOME")) && env[0] == '/')    /* XDG: relative is ignored */
        *dir = oklc_rt_path(env, "oklc");
    else {
        const char *home = getenv("HOME");
        struct passwd *pw = home && *home ? NULL : getpwuid(getuid());
        if (pw)
            home = pw->pw_dir;
        if (!home || !*home)
            return oklc_rt_fail(OKLC_ERR_IO, "no folder for the kernel cache: HOME is not set; "
                                "set OKLC_CACHE_DIR");
        *dir = oklc_rt_path(home, ".cache/oklc");
    }
    return *dir ? OKLC_OK : oklc_rt_oom();
}

/* Whoever can write the folder can put code into every kernel we load. */
static oklc_status check_root(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return oklc_rt_fail(OKLC_ERR_IO, "the kernel cache '%s': %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return oklc_rt_fail(OKLC_ERR_IO, "the kernel cache '%s' is not a folder", dir);
    if (st.st_uid != geteuid())
        return oklc_rt_fail(OKLC_ERR_IO, "the kernel cache '%s' belongs to user %ld, not to "
                            "you (%ld): oklc loads code from it only from a folder of your own; "
                            "set OKLC_CACHE_DIR", dir, (long)st.st_uid, (long)geteuid());
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        return oklc_rt_fail(OKLC_ERR_IO, "the kernel cache '%s' is writable by others (mode "
                            "%03o): oklc loads code from it only when it is not; "
                            "chmod go-w it or set OKLC_CACHE_DIR", dir,
                            (unsigned)(st.st_mode & 0777));
    return OKLC_OK;
}

oklc_status oklc_rt_cache_root(char **root)
{
    char *dir = NULL;
    oklc_status st = choose_root(&dir);
    if (!st)
        st = oklc_rt_mkdirs(dir, 0700);
    if (!st)
        st = check_root(dir);
    if (!st && !(*root = oklc_rt_absolute(dir)))
        st = oklc_rt_oom();
    oklc_free(dir);
    return st;
}

/* Each field with its length, so that ("ab", "c") and ("a", "bc") differ. */
static void add(XXH3_state_t *h, const void *data, size_t len)
{
    XXH3_128bits_update(h, &len, sizeof len);
    XXH3_128bits_update(h, data, len);
}

static void add_str(XXH3_state_t *h, const char *s)
{
    add(h, s ? s : "", s ? strlen(s) : 0);
}

/* The compiler by what it is, not by its name: where its links lead, its
 * size and its date change when it is replaced or upgraded. */
static void add_compiler(XXH3_state_t *h, const char *path)
{
    struct stat st;
    char *real = realpath(path, NULL);
    add_str(h, real ? real : path);
    free(real);
    if (stat(path, &st) == 0) {
        long long id[2] = {(long long)st.st_size, (long long)st.st_mtime};
        add(h, id, sizeof id);
    }
}

/* Everything that changes the binary. The transpiler's input hash covers
 * the preprocessed source with its includes; its output and metadata are
 * hashed too, so a changed transpiler never reuses an old entry. GPU-like
 * devices add the launcher, the device compiler's options, and the device
 * with its driver and compiler versions (b->device_id): their binaries are
 * the device's. CPU devices add the CPU there when the flags make code for
 * it alone (-march=native, the default). */
void oklc_rt_cache_key(const Build *b, char key[33])
{
    XXH3_state_t h;
    XXH3_128bits_reset(&h);
    add_str(&h, "oklc cache 1");
    add_str(&h, oklc_version());
    add_str(&h, b->dev->ops->name);
    add_str(&h, b->props->okl ? "okl" : "native");
    add_str(&h, strchr(b->name, '<') ? b->name : "");    /* an instance is its own build */
    add_str(&h, b->input_hash);
    add(&h, b->source, b->source_len);
    add_str(&h, b->metadata);
    add_str(&h, b->preprocessed);
    for (size_t i = 0; i < b->props->ncmds; i++) {
        add(&h, &b->props->cmds[i].kind, sizeof b->props->cmds[i].kind);
        add_str(&h, b->props->cmds[i].text);
    }
    add_str(&h, b->launcher);
    add_str(&h, b->device_id);    /* binaries for one device (or CPU) only */
    for (size_t i = 0; i < b->nopts; i++)
        add_str(&h, b->opts[i]);
    add_str(&h, "cmd");
    for (size_t i = 0; i < b->ncmd; i++)
        add_str(&h, b->cmd[i]);
    if (b->ncmd)
        add_compiler(&h, b->cmd[0]);
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits_digest(&h));
    for (int i = 0; i < 16; i++)
        snprintf(key + 2 * i, 3, "%02x", c.digest[i]);
}

oklc_status oklc_rt_cache_tmp(const char *root, const char *key, char **tmp)
{
    /* mkdtemp replaces the six last characters: unique per build */
    char *t = oklc_rt_format("%s/%s.tmp.%ld.XXXXXX", root, key, (long)getpid());
    if (!t)
        return oklc_rt_oom();
    if (!mkdtemp(t)) {
        oklc_status st = oklc_rt_fail(OKLC_ERR_IO, "cannot create a folder in the kernel cache "
                                      "'%s': %s", root, strerror(errno));
        oklc_free(t);
        return st;
    }
    *tmp = t;
    return OKLC_OK;
}

oklc_status oklc_rt_cache_publish(const char *tmp, const char *entry)
{
    if (rename(tmp, entry) == 0)
        return OKLC_OK;
    int e = errno;
    oklc_rt_remove_tree(tmp);
    if (e == EEXIST || e == ENOTEMPTY)
        return OKLC_OK;    /* another process built the same entry first */
    return oklc_rt_fail(OKLC_ERR_IO, "cannot move '%s' to '%s': %s", tmp, entry, strerror(e));
}

void oklc_rt_cache_sweep(const char *root, long age)
{
    DIR *d = opendir(root);
    if (!d)
        return;
    time_t now = time(NULL);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strstr(e->d_name, ".tmp."))
            continue;
        char *path = oklc_rt_path(root, e->d_name);
        struct stat st;
        if (path && lstat(path, &st) == 0 && now - st.st_mtime > age)
            oklc_rt_remove_tree(path);
        oklc_free(path);
    }
    closedir(d);
}
