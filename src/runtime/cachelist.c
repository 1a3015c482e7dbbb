/*
 * cachelist.c - the cache as `oklc cache` shows it: its entries with what
 * their entry.json says (kernel, device kind, input file), their size and
 * when they were last used, the failed builds kept in failed/; pruning by
 * age and clearing. Only what the cache makes is touched (folders named by
 * a key, failed/, temporary folders, the command's pch/), never through a
 * symbolic link.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "rt.h"

/* A cache key: 32 lowercase hex digits. */
static bool is_key(const char *name)
{
    return strlen(name) == 32 && strspn(name, "0123456789abcdef") == 32;
}

/* Bytes of the regular files in a folder (and one level below). */
static uint64_t folder_bytes(int parent, const char *name, int depth)
{
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    uint64_t sum = 0;
    struct dirent *e;
    struct stat st;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' && !fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW))
            sum += S_ISREG(st.st_mode) ? (uint64_t)st.st_size
                   : S_ISDIR(st.st_mode) && depth ? folder_bytes(dirfd(d), e->d_name, depth - 1)
                                                  : 0;
    closedir(d);
    return sum;
}

/* What entry.json says: kernel, mode, source. */
static void read_description(const char *folder, oklc_cache_entry *e)
{
    char *path = oklc_rt_path(folder, "entry.json"), *text = NULL;
    if (path && !oklc_rt_read_file(path, &text, NULL)) {
        cJSON *o = cJSON_Parse(text);
        const char *k = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "kernel"));
        const char *m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "mode"));
        const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "source"));
        snprintf(e->kernel, sizeof e->kernel, "%s", k ? k : "");
        snprintf(e->mode, sizeof e->mode, "%s", m ? m : "");
        snprintf(e->source, sizeof e->source, "%s", s ? s : "");
        cJSON_Delete(o);
    }
    oklc_free(text);
    oklc_free(path);
}

typedef struct List {
    oklc_cache_entry *e;
    size_t            n, cap;
} List;

static oklc_status add_entry(List *l, int dir, const char *folder, const char *name, bool failed)
{
    struct stat st;
    if (!is_key(name) || fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))
        return OKLC_OK;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        oklc_cache_entry *bigger = realloc(l->e, cap * sizeof *bigger);    /* free()d by the caller */
        if (!bigger)
            return oklc_rt_oom();
        l->e = bigger, l->cap = cap;
    }
    oklc_cache_entry *e = &l->e[l->n++];
    memset(e, 0, sizeof *e);
    snprintf(e->id, sizeof e->id, "%s", name);
    snprintf(e->path, sizeof e->path, "%s/%s", folder, name);
    e->failed = failed;
    e->last_used = (int64_t)st.st_mtime;
    e->bytes = folder_bytes(dir, name, 1);
    read_description(e->path, e);
    return OKLC_OK;
}

/* The key folders of `folder` into l. */
static oklc_status add_folder(List *l, const char *folder, bool failed)
{
    DIR *d = opendir(folder);
    if (!d)
        return OKLC_OK;    /* no failed/: none failed */
    oklc_status st = OKLC_OK;
    struct dirent *e;
    while (!st && (e = readdir(d)))
        st = add_entry(l, dirfd(d), folder, e->d_name, failed);
    closedir(d);
    return st;
}

static int newest_first(const void *a, const void *b)
{
    const oklc_cache_entry *x = a, *y = b;
    return x->last_used != y->last_used ? (x->last_used < y->last_used ? 1 : -1)
                                        : strcmp(x->id, y->id);
}

oklc_status oklc_cache_dir(char **dir)
{
    if (!dir)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_cache_dir: NULL dir");
    char *root = NULL;
    oklc_status st = oklc_rt_cache_root(&root);
    *dir = st ? NULL : strdup(root);
    oklc_free(root);
    return st ? st : *dir ? OKLC_OK : oklc_rt_oom();
}

oklc_status oklc_cache_list(oklc_cache_entry **entries, size_t *n)
{
    if (!entries || !n)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_cache_list: NULL %s",
                            entries ? "n" : "entries");
    *entries = NULL, *n = 0;
    char *root = NULL, *failed = NULL;
    List l = {0};
    oklc_status st = oklc_rt_cache_root(&root);
    if (!st)
        st = (failed = oklc_rt_path(root, "failed")) ? add_folder(&l, root, false) : oklc_rt_oom();
    if (!st)
        st = add_folder(&l, failed, true);
    oklc_free(root);
    oklc_free(failed);
    if (st) {
        free(l.e);
        return st;
    }
    if (l.n)
        qsort(l.e, l.n, sizeof *l.e, newest_first);
    *entries = l.e, *n = l.n;
    return OKLC_OK;
}

/* Removes what in `folder` is the cache's and older than `age` seconds
 * (every such thing when age < 0, the pch folder too), counting it. */
static void remove_old(const char *folder, int64_t age, size_t *removed, uint64_t *bytes)
{
    DIR *d = opendir(folder);
    if (!d)
        return;
    time_t now = time(NULL);
    struct dirent *e;
    struct stat st;
    while ((e = readdir(d))) {
        const char *name = e->d_name;
        bool ours = is_key(name) || strstr(name, ".tmp.") || (age < 0 && !strcmp(name, "pch"));
        if (!ours || fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) ||
            st.st_uid != geteuid() || (age >= 0 && now - st.st_mtime <= age))
            continue;
        *bytes += S_ISDIR(st.st_mode) ? folder_bytes(dirfd(d), name, 1) : (uint64_t)st.st_size;
        oklc_rt_remove_at(dirfd(d), name);
        *removed += fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) != 0;
    }
    closedir(d);
}

static oklc_status prune(int64_t age, size_t *removed, uint64_t *bytes)
{
    size_t r = 0;
    uint64_t b = 0;
    char *root = NULL, *failed = NULL;
    oklc_status st = oklc_rt_cache_root(&root);
    if (!st && !(failed = oklc_rt_path(root, "failed")))
        st = oklc_rt_oom();
    if (!st) {
        remove_old(root, age, &r, &b);
        remove_old(failed, age, &r, &b);
        rmdir(failed);    /* when empty */
    }
    oklc_free(root);
    oklc_free(failed);
    if (removed)
        *removed = r;
    if (bytes)
        *bytes = b;
    return st;
}

oklc_status oklc_cache_prune(int64_t age, size_t *removed, uint64_t *bytes)
{
    if (age < 0)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_cache_prune: a negative age (%lld s)",
                            (long long)age);
    return prune(age, removed, bytes);
}

oklc_status oklc_cache_clear(size_t *removed, uint64_t *bytes)
{
    return prune(-1, removed, bytes);
}
