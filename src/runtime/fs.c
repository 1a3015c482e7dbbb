/*
 * fs.c - files and folders for the runtime: whole-file reads and writes,
 * mkdir -p, rm -rf, path joins. Failures are OKLC_ERR_IO naming the path
 * and strerror(). Removal never follows a symbolic link: it removes the
 * link, not what it points to.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt.h"

oklc_status oklc_rt_read_file(const char *path, char **text, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return oklc_rt_fail(OKLC_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    size_t cap = 4096, n = 0;
    char *buf = oklc_malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1)
            break;
        char *bigger = oklc_realloc(buf, cap *= 2);
        if (!bigger)
            oklc_free(buf);
        buf = bigger;
    }
    bool bad = ferror(f);
    fclose(f);
    if (!buf)
        return oklc_rt_oom();
    if (bad) {
        oklc_free(buf);
        return oklc_rt_fail(OKLC_ERR_IO, "cannot read '%s'", path);
    }
    buf[n] = '\0';
    *text = buf;
    if (len)
        *len = n;
    return OKLC_OK;
}

static oklc_status write_file(const char *path, const char *text, size_t len, const char *mode)
{
    FILE *f = fopen(path, mode);
    if (!f)
        return oklc_rt_fail(OKLC_ERR_IO, "cannot create '%s': %s", path, strerror(errno));
    bool ok = fwrite(text, 1, len, f) == len;
    ok &= fclose(f) == 0;
    if (!ok)
        return oklc_rt_fail(OKLC_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    return OKLC_OK;
}

oklc_status oklc_rt_write_file(const char *path, const char *text, size_t len)
{
    return write_file(path, text, len, "wb");
}

oklc_status oklc_rt_append_file(const char *path, const char *text, size_t len)
{
    return write_file(path, text, len, "ab");
}

/* Each missing component in turn; one that appears meanwhile (another
 * process creating the same cache) is fine. */
oklc_status oklc_rt_mkdirs(const char *path, mode_t mode)
{
    if (!*path)
        return oklc_rt_fail(OKLC_ERR_IO, "cannot create a folder with an empty name");
    char *p = oklc_rt_strdup(path);
    if (!p)
        return oklc_rt_oom();
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        if (mkdir(p, mode) != 0 && errno != EEXIST) {
            oklc_status st = oklc_rt_fail(OKLC_ERR_IO, "cannot create the folder '%s': %s", p,
                                          strerror(errno));
            oklc_free(p);
            return st;
        }
        *s = c;
        if (!c)
            break;
    }
    oklc_free(p);
    return OKLC_OK;
}

enum { REMOVE_DEPTH = 16 };    /* cache entries are flat: anything deeper is not ours */

static void remove_at(int dir, const char *name, int depth, dev_t dev);

/* Empties the open folder `fd` (and closes it); a second pass for file
 * systems whose readdir skips names while others are removed. */
static void empty_folder(int fd, int depth, dev_t dev)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return;
    }
    for (int pass = 0; pass < 2; pass++) {
        struct dirent *e;
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                remove_at(dirfd(d), e->d_name, depth + 1, dev);
        rewinddir(d);
    }
    closedir(d);
}

/* Never through a link: `name` is looked at with AT_SYMLINK_NOFOLLOW, a
 * folder entered through a descriptor opened with O_NOFOLLOW (a folder
 * swapped for a link meanwhile is not entered), and what is in it removed
 * relative to that descriptor, so no path is resolved again. Never into
 * another file system either: a folder on a device other than `dev` (a
 * mount point inside) stays, with all it holds. */
static void remove_at(int dir, const char *name, int depth, dev_t dev)
{
    struct stat st;
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_dev != dev)
        return;
    if (!S_ISDIR(st.st_mode)) {
        unlinkat(dir, name, 0);    /* a link goes, its target stays */
        return;
    }
    if (depth >= REMOVE_DEPTH)
        return;
    int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat in;
    if (fd < 0)
        return;
    if (fstat(fd, &in) != 0 || in.st_dev != dev || in.st_ino != st.st_ino) {
        close(fd);                /* swapped meanwhile, or a mount point */
        return;
    }
    empty_folder(fd, depth, dev);
    unlinkat(dir, name, AT_REMOVEDIR);
}

/* What `name` is removed with: the device of the folder it is in. */
void oklc_rt_remove_at(int dir, const char *name)
{
    struct stat st;
    if (fstat(dir, &st) == 0)
        remove_at(dir, name, 0, st.st_dev);
}

/* No allocation: this cleans up after failures, running out of memory
 * among them. */
void oklc_rt_remove_tree(const char *path)
{
    char parent[PATH_MAX] = ".";
    const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
    if (slash) {
        size_t n = slash == path ? 1 : (size_t)(slash - path);    /* "/x": "/" */
        if (n >= sizeof parent)
            return;
        memcpy(parent, path, n);
        parent[n] = '\0';
    }
    if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
        return;
    int fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return;
    oklc_rt_remove_at(fd, name);
    close(fd);
}

char *oklc_rt_path(const char *dir, const char *name)
{
    return oklc_rt_format("%s/%s", dir, name);
}

char *oklc_rt_absolute(const char *path)
{
    char *r = realpath(path, NULL);
    if (!r)
        return oklc_rt_strdup(path);
    char *copy = oklc_rt_strdup(r);
    free(r);    /* realpath's memory comes from malloc */
    return copy;
}
