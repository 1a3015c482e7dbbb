/*
 * cache.c - the kernel cache on disk: where it is, the key of a build, and
 * entries that appear whole or not at all, checked before they are used.
 *
 * The folder is $OKLC_CACHE_DIR, else $XDG_CACHE_HOME/oklc, else
 * ~/.cache/oklc, created 0700. Since oklc loads code from it, it must be
 * private, as OpenSSH wants ~/.ssh: the folder is the user's (one that
 * others may write is refused: what is in it may be theirs; one they may
 * only read is made 0700), and each folder above it belongs to root or the
 * user and only its owner can write it (a sticky one, such as /tmp, is
 * fine). An entry is a folder named by the key (source, binary,
 * metadata.json, build.log; GPU-like devices: the device binary,
 * options.txt, and for OKL the launcher) with a manifest, written last,
 * that lists every file with its size and XXH3-128 hash. It is built in
 * <key>.tmp.<pid>.<random> and renamed into place: rename is atomic, so
 * another process sees no entry or a whole one, without any lock (MPI
 * ranks build at once on shared file systems, where locks go stale). When
 * two processes build the same entry, the first rename wins and the other
 * process uses it. An entry whose files do not match its manifest (a disk
 * that filled up, a crash before the data reached the disk, a truncated
 * file), or that has none (an older oklc made it), is built again and
 * swapped in with one rename (RENAME_EXCHANGE). A failed compile's folder
 * becomes failed/<key> (its source and log, for the user; the last failure
 * of each key, gone when the key builds). Temporary folders of killed
 * processes are swept when older than an hour, failed builds after a day;
 * removal never follows a symbolic link. oklc_cache_list and the others
 * (cachelist.c) show and remove entries for `oklc cache`.
 */
#define _GNU_SOURCE    /* renameat2 and RENAME_EXCHANGE: a damaged entry replaced in one step */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
    else if ((env = getenv("OCCA_CACHE_DIR")) && *env)    /* beside OCCA's own entries */
        *dir = oklc_rt_path(env, "oklc");
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

/* Whoever can write the folder, or rename it or a folder above it, can put
 * code into every kernel we load: each folder above the cache belongs to
 * root or to us and only its owner may write it, unless it is sticky (as
 * /tmp: there others cannot rename what is ours). OpenSSH checks the
 * folders above ~/.ssh the same way. */
static oklc_status check_parent(const char *root, const char *dir)
{
    struct stat st;
    if (lstat(dir, &st) != 0)
        return oklc_rt_fail(OKLC_ERR_IO, "the kernel cache '%s': cannot check the folder '%s' "
                            "above it: %s", root, dir, strerror(errno));
    if (st.st_uid != 0 && st.st_uid != geteuid())
        return oklc_rt_fail(OKLC_ERR_IO, "the kernel cache '%s' is inside '%s', which belongs "
                            "to user %ld, not to you (%ld) or root: that user could replace "
                            "the cache and the code in it; set OKLC_CACHE_DIR to a folder "
                            "inside one of your own", root, dir, (long)st.st_uid,
                            (long)geteuid());
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
        return oklc_rt_fail(OKLC_ERR_IO, "the kernel cache '%s' is inside '%s', which others "
                            "can write (mode %03o, not sticky): they could replace the cache "
                            "and the code in it; chmod go-w '%s', or set OKLC_CACHE_DIR to a "
                            "folder whose parents only you and root can write", root, dir,
                            (unsigned)(st.st_mode & 0777), dir);
    return OKLC_OK;
}

/* Each folder above `root` (an absolute path without links), up to "/". */
static oklc_status check_parents(const char *root)
{
    char path[PATH_MAX];
    if (strlen(root) >= sizeof path)
        return oklc_rt_fail(OKLC_ERR_IO, "the kernel cache '%s': the path is too long", root);
    strcpy(path, root);
    oklc_status st = OKLC_OK;
    char *slash;
    while (!st && (slash = strrchr(path, '/'))) {
        bool top = slash == path;
        slash[top] = '\0';    /* "/a/b" -> "/a" -> "/" */
        st = check_parent(root, path);
        if (top)
            break;
    }
    return st;
}

/* The folder itself is ours. One that others may write is refused: they
 * may already have put something in it, and a chmod would not take it out.
 * One they may only read (made by hand under umask 022) is made 0700: its
 * entries are ours, and kernels may be private. */
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
                            "%03o): what is in it may not be yours; remove it (oklc creates it "
                            "again) or set OKLC_CACHE_DIR", dir, (unsigned)(st.st_mode & 0777));
    if ((st.st_mode & 077) && chmod(dir, 0700) != 0)
        return oklc_rt_fail(OKLC_ERR_IO, "the kernel cache '%s' is readable by others (mode "
                            "%03o) and cannot be made private (chmod 700: %s); set "
                            "OKLC_CACHE_DIR", dir, (unsigned)(st.st_mode & 0777),
                            strerror(errno));
    if ((st.st_mode & 077) && oklc_rt_verbose())
        fprintf(stderr, "oklc: the kernel cache '%s' was mode %03o, now 700\n", dir,
                (unsigned)(st.st_mode & 0777));
    return OKLC_OK;
}

/* The folder without links, so that what is checked is what is used. */
static oklc_status real_root(const char *dir, char **real)
{
    char *r = realpath(dir, NULL);
    if (!r)
        return oklc_rt_fail(OKLC_ERR_IO, "the kernel cache '%s': %s", dir, strerror(errno));
    *real = oklc_rt_strdup(r);
    free(r);    /* realpath's memory comes from malloc */
    return *real ? OKLC_OK : oklc_rt_oom();
}

oklc_status oklc_rt_cache_root(char **root)
{
    char *dir = NULL, *real = NULL;
    *root = NULL;
    oklc_status st = choose_root(&dir);
    if (!st)
        st = oklc_rt_mkdirs(dir, 0700);
    if (!st)
        st = real_root(dir, &real);
    if (!st)
        st = check_parents(real);    /* first: then nobody else can swap the folder */
    if (!st)
        st = check_root(real);
    if (!st) {
        *root = real;
        real = NULL;
    }
    oklc_free(dir);
    oklc_free(real);
    return st;
}

/* The hash as 32 hex digits, most significant first. */
static void hex_digest(XXH3_state_t *h, char hex[33])
{
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits_digest(h));
    for (int i = 0; i < 16; i++)
        snprintf(hex + 2 * i, 3, "%02x", c.digest[i]);
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
    add_str(&h, b->props->no_cpu_rewrites ? "plain" : "rewritten");
    add_str(&h, strchr(b->name, '<') ? b->name : "");    /* an instance is its own build */
    add_str(&h, b->input_hash);
    add(&h, b->source, b->source_len);
    add_str(&h, b->metadata);
    add_str(&h, b->preprocessed);
    for (size_t i = 0; i < b->props->ncmds; i++) {
        add(&h, &b->props->cmds[i].kind, sizeof b->props->cmds[i].kind);
        add_str(&h, b->props->cmds[i].text);
        char *text;
        size_t len;
        if (b->props->cmds[i].kind == PROP_INTRINSICS &&
            oklc_rt_read_file(b->props->cmds[i].text, &text, &len) == OKLC_OK) {
            add(&h, text, len);      /* the file as it is now, not only its name */
            oklc_free(text);
        }
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
    hex_digest(&h, key);
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

/* ---- the manifest ---------------------------------------------------------------- */

/* "manifest": a header line, then a line per file of the entry, sorted by
 * name: "<XXH3-128, 32 hex digits> <size> <name>". XXH3-128 finds damage,
 * not tampering: whoever could tamper could rewrite the manifest too, which
 * is why the folder must be private. */
#define MANIFEST "manifest"
#define FAILED "failed"          /* root/failed/<key>: the last failed build of a key */
#define MANIFEST_HEADER "oklc cache entry 1\n"

enum {
    MAX_FILES = 16,                  /* an entry has 4 to 8 */
    LINE_CAP = 32 + 1 + 20 + 1 + NAME_MAX + 1,
    MANIFEST_CAP = sizeof MANIFEST_HEADER + MAX_FILES * LINE_CAP,
    CHUNK = 64 * 1024
};

typedef struct Names {
    int  n;
    char name[MAX_FILES][NAME_MAX + 1];
} Names;

static int by_name(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* The names in the folder `dir` but the manifest, sorted. */
static oklc_status list_names(int dir, const char *where, Names *out)
{
    int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return oklc_rt_fail(OKLC_ERR_IO, "cannot read the folder '%s': %s", where,
                            strerror(errno));
    }
    oklc_status st = OKLC_OK;
    struct dirent *e;
    out->n = 0;
    while (!st && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, MANIFEST))
            continue;
        if (out->n == MAX_FILES)
            st = oklc_rt_fail(OKLC_ERR_IO, "'%s' holds more than %d files", where, MAX_FILES);
        else
            snprintf(out->name[out->n++], NAME_MAX + 1, "%s", e->d_name);
    }
    closedir(d);
    qsort(out->name, (size_t)out->n, sizeof out->name[0], by_name);
    return st;
}

/* XXH3-128 of a whole file, as hex; *size: its bytes. Never through a link
 * (the cache makes none), never blocking (a FIFO is not a file of ours).
 * OKLC_ERR_IO saying why, in terms of `name` alone. */
static oklc_status hash_file(int dir, const char *name, char hex[33], long long *size)
{
    int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int e = fd < 0 ? errno : EINVAL;
        if (fd >= 0)
            close(fd);
        return oklc_rt_fail(OKLC_ERR_IO, "%s: %s", name,
                            e == ELOOP ? "a symbolic link" : e == EINVAL ? "not a file"
                                                                       : strerror(e));
    }
    char *buf = oklc_malloc(CHUNK);
    if (!buf) {
        close(fd);
        return oklc_rt_oom();
    }
    XXH3_state_t h;
    XXH3_128bits_reset(&h);
    ssize_t n;
    *size = 0;
    while ((n = read(fd, buf, CHUNK)) > 0) {
        XXH3_128bits_update(&h, buf, (size_t)n);
        *size += n;
    }
    int e = errno;
    close(fd);
    oklc_free(buf);
    if (n < 0)
        return oklc_rt_fail(OKLC_ERR_IO, "%s: %s", name, strerror(e));
    hex_digest(&h, hex);
    return OKLC_OK;
}

/* The manifest's text for the files of `dir`. */
static oklc_status manifest_text(int dir, const char *tmp, char *text)
{
    Names names;
    oklc_status st = list_names(dir, tmp, &names);
    size_t len = strlen(strcpy(text, MANIFEST_HEADER));
    for (int i = 0; !st && i < names.n; i++) {
        char hex[33];
        long long size;
        if (strchr(names.name[i], '\n'))    /* a line each */
            st = oklc_rt_fail(OKLC_ERR_IO, "a file name with a line break");
        if (st || (st = hash_file(dir, names.name[i], hex, &size)))
            break;
        len += (size_t)snprintf(text + len, MANIFEST_CAP - len, "%s %lld %s\n", hex, size,
                                names.name[i]);
    }
    return st;
}

oklc_status oklc_rt_cache_seal(const char *tmp)
{
    int dir = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return oklc_rt_fail(OKLC_ERR_IO, "cannot open '%s': %s", tmp, strerror(errno));
    char *text = oklc_malloc(MANIFEST_CAP), *path = oklc_rt_path(tmp, MANIFEST);
    oklc_status st = text && path ? manifest_text(dir, tmp, text) : oklc_rt_oom();
    if (st == OKLC_ERR_IO)
        st = oklc_rt_fail(st, "cannot write the manifest of '%s': %s", tmp,
                          oklc_last_error());
    if (!st)
        st = oklc_rt_write_file(path, text, strlen(text));
    close(dir);
    oklc_free(text);
    oklc_free(path);
    return st;
}

/* The manifest, whole (a NUL-terminated text of at most MANIFEST_CAP). */
static oklc_status read_manifest(int dir, char *text)
{
    int fd = openat(dir, MANIFEST, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return oklc_rt_fail(OKLC_ERR_LOAD, "%s", errno == ENOENT
                            ? "it has no manifest (an older oklc made it)" : strerror(errno));
    ssize_t n, len = 0;
    while ((n = read(fd, text + len, MANIFEST_CAP - (size_t)len)) > 0)
        len += n;
    close(fd);
    if (n < 0 || len == MANIFEST_CAP)
        return oklc_rt_fail(OKLC_ERR_LOAD, "its manifest %s",
                            n < 0 ? "cannot be read" : "is too long");
    text[len] = '\0';
    return OKLC_OK;
}

/* One line of the manifest, "<hex> <size> <name>\n", taken apart. */
static bool parse_line(char **at, char hex[33], long long *size, char name[NAME_MAX + 1])
{
    char *line = *at, *end = strchr(line, '\n');
    if (!end || strspn(line, "0123456789abcdef") != 32 || line[32] != ' ')
        return false;
    char *digits = line + 33, *file;
    size_t n = strspn(digits, "0123456789");
    if (!n || n > 18 || digits[n] != ' ')
        return false;
    file = digits + n + 1;
    if (end == file || end - file > NAME_MAX)
        return false;
    snprintf(hex, 33, "%.32s", line);
    *size = strtoll(digits, NULL, 10);
    snprintf(name, NAME_MAX + 1, "%.*s", (int)(end - file), file);
    *at = end + 1;
    return true;
}

/* A line against its file: names strictly in order (so none twice) and
 * plain (no '/': nothing outside the entry). */
static oklc_status check_line(int dir, char **at, char previous[NAME_MAX + 1])
{
    char want[33], hex[33], name[NAME_MAX + 1];
    long long want_size, size;
    if (!parse_line(at, want, &want_size, name) || strchr(name, '/') ||
        strcmp(name, previous) <= 0 || !strcmp(name, MANIFEST))
        return oklc_rt_fail(OKLC_ERR_LOAD, "its manifest is not valid");
    strcpy(previous, name);
    oklc_status st = hash_file(dir, name, hex, &size);
    if (st == OKLC_ERR_IO)
        return oklc_rt_fail(OKLC_ERR_LOAD, "%s", oklc_last_error());
    if (!st && size != want_size)
        return oklc_rt_fail(OKLC_ERR_LOAD, "%s has %lld bytes, its manifest says %lld", name,
                            size, want_size);
    if (!st && strcmp(hex, want))
        return oklc_rt_fail(OKLC_ERR_LOAD, "%s does not match its hash in the manifest", name);
    return st;
}

/* Every line against its file, and no file the manifest does not list. */
static oklc_status check_entry(int dir, const char *entry, char *text)
{
    oklc_status st = read_manifest(dir, text);
    if (!st && strncmp(text, MANIFEST_HEADER, strlen(MANIFEST_HEADER)))
        st = oklc_rt_fail(OKLC_ERR_LOAD, "its manifest is not valid");
    char *at = text + strlen(MANIFEST_HEADER), previous[NAME_MAX + 1] = "";
    int listed = 0;
    for (; !st && *at; listed++)
        st = check_line(dir, &at, previous);
    Names names;
    if (!st && (st = list_names(dir, entry, &names)) == OKLC_ERR_IO)
        st = oklc_rt_fail(OKLC_ERR_LOAD, "%s", oklc_last_error());
    if (!st && names.n != listed)
        st = oklc_rt_fail(OKLC_ERR_LOAD, "it holds %d files, its manifest lists %d", names.n,
                          listed);
    return st;
}

/* Does the name no longer hold the folder open as `dir` (another process
 * swapped its build in, or moved the entry aside)? */
static bool swapped(int dir, const char *entry)
{
    struct stat a, b;
    return fstat(dir, &a) == 0 &&
           (stat(entry, &b) != 0 || a.st_ino != b.st_ino || a.st_dev != b.st_dev);
}

/* Damage counts only where the name still holds the folder that was read:
 * a process that swaps a fresh build in (replace()) removes the old folder,
 * possibly while this one reads it; then the entry is read again. */
oklc_status oklc_rt_cache_verify(const char *entry, bool *found)
{
    for (int tries = 0;; tries++) {
        int dir = open(entry, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        *found = dir >= 0 || errno != ENOENT;
        if (dir < 0)
            return oklc_rt_fail(OKLC_ERR_LOAD, "the cache entry '%s': %s", entry,
                                strerror(errno));
        char *text = oklc_malloc(MANIFEST_CAP + 1);
        oklc_status st = text ? check_entry(dir, entry, text) : oklc_rt_oom();
        bool again = st == OKLC_ERR_LOAD && tries < 8 && swapped(dir, entry);
        if (st == OKLC_ERR_LOAD)
            st = oklc_rt_fail(st, "the cache entry '%s' is damaged: %s", entry,
                              oklc_last_error());
        close(dir);
        oklc_free(text);
        if (!again)
            return st;
    }
}

bool oklc_rt_cache_sealed(const char *entry)
{
    int dir = open(entry, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat st;
    bool sealed = dir >= 0 && fstatat(dir, MANIFEST, &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (dir >= 0)
        close(dir);
    return sealed;
}

/* ---- publishing ------------------------------------------------------------------- */

static oklc_status move_failed(const char *from, const char *to, int e)
{
    return oklc_rt_fail(OKLC_ERR_IO, "cannot move '%s' to '%s': %s", from, to, strerror(e));
}

/* Where RENAME_EXCHANGE is missing (some network file systems): the old
 * entry is renamed aside, then ours into place. In between another process
 * may find no entry and build one too; whichever rename comes first wins. */
static oklc_status move_aside(const char *tmp, const char *entry)
{
    char *aside = oklc_rt_format("%s.old", tmp);    /* a .tmp. name: swept if left */
    oklc_status st = aside ? OKLC_OK : oklc_rt_oom();
    if (!st && rename(entry, aside) != 0 && errno != ENOENT)
        st = move_failed(entry, aside, errno);
    if (!st && rename(tmp, entry) != 0 && errno != EEXIST && errno != ENOTEMPTY)
        st = move_failed(tmp, entry, errno);
    oklc_rt_remove_tree(tmp);    /* gone when renamed; ours when another one won */
    if (aside)
        oklc_rt_remove_tree(aside);
    oklc_free(aside);
    return st;
}

/* Puts the fresh build `tmp` in place of the damaged entry, in one step:
 * RENAME_EXCHANGE swaps the two names, so that every process finds a whole
 * entry at every moment; the old one ends up under tmp's name and goes.
 * (Processes that found the same damage at once each swap theirs in: each
 * is whole, the last one stays.) */
static oklc_status replace(const char *tmp, const char *entry)
{
#ifdef RENAME_EXCHANGE
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, entry, RENAME_EXCHANGE) == 0) {
        oklc_rt_remove_tree(tmp);
        return OKLC_OK;
    }
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP && errno != ENOENT) {
        oklc_status st = move_failed(tmp, entry, errno);
        oklc_rt_remove_tree(tmp);
        return st;
    }
#endif
    return move_aside(tmp, entry);
}

oklc_status oklc_rt_cache_publish(const char *tmp, const char *entry)
{
    if (rename(tmp, entry) == 0)
        return OKLC_OK;
    int e = errno;
    if (e != EEXIST && e != ENOTEMPTY && e != ENOTDIR && e != EISDIR) {
        oklc_rt_remove_tree(tmp);
        return move_failed(tmp, entry, e);
    }
    /* Another process built the same entry first, or the entry there is
     * the damaged one this build replaces. */
    bool found;
    oklc_status st = oklc_rt_cache_verify(entry, &found);
    if (st == OKLC_ERR_LOAD)
        return replace(tmp, entry);
    oklc_rt_remove_tree(tmp);
    return st;
}

/* Only names the cache makes, only things of ours, never through a link
 * (a link named like a temporary folder is removed, not followed). */
static void sweep_folder(const char *dir, bool all, long age)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    time_t now = time(NULL);
    struct dirent *e;
    while ((e = readdir(d))) {
        struct stat st;
        if ((all ? e->d_name[0] != '.' : strstr(e->d_name, ".tmp.") != NULL) &&
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            st.st_uid == geteuid() && now - st.st_mtime > age)
            oklc_rt_remove_at(dirfd(d), e->d_name);
    }
    closedir(d);
}

/* Temporary folders older than `age`; failed builds a day older still. */
void oklc_rt_cache_sweep(const char *root, long age)
{
    sweep_folder(root, false, age);
    char *failed = oklc_rt_path(root, FAILED);
    if (failed)
        sweep_folder(failed, true, age + 24 * 3600);
    oklc_free(failed);
}

/* text with each `from` made `to` (oklc_free it); NULL when memory runs out. */
static char *replace_all(const char *text, const char *from, const char *to)
{
    size_t n = 0, lf = strlen(from), lt = strlen(to);
    for (const char *p = strstr(text, from); p; p = strstr(p + lf, from))
        n++;
    char *out = oklc_malloc(strlen(text) + n * (lt > lf ? lt - lf : 0) + 1), *o = out;
    for (const char *p = text, *hit; out; p = hit + lf) {
        if (!(hit = strstr(p, from))) {
            strcpy(o, p);
            break;
        }
        memcpy(o, p, (size_t)(hit - p));
        o += hit - p;
        memcpy(o, to, lt);
        o += lt;
    }
    return out;
}

/* root/failed/key of the entry root/key (oklc_free it). */
static char *failed_path(const char *entry)
{
    const char *slash = strrchr(entry, '/');
    return slash ? oklc_rt_format("%.*s/" FAILED "/%s", (int)(slash - entry), entry, slash + 1)
                 : NULL;
}

/* A failed compile: its folder becomes failed/<key>, in place of the last
 * failure of that key, and the message names it there. */
static oklc_status keep_failure(const char *tmp, const char *entry, oklc_status st)
{
    char *failed = failed_path(entry), *message = oklc_rt_strdup(oklc_last_error());
    char *dir = failed ? oklc_rt_format("%.*s", (int)(strrchr(failed, '/') - failed), failed)
                       : NULL;
    bool moved = dir && message && (mkdir(dir, 0700) == 0 || errno == EEXIST);
    if (moved) {
        oklc_rt_remove_tree(failed);
        moved = rename(tmp, failed) == 0;
    }
    char *moved_message = moved ? replace_all(message, tmp, failed) : NULL;
    if (moved_message)
        st = oklc_rt_fail(st, "%s", moved_message);
    oklc_free(moved_message);
    oklc_free(dir);
    oklc_free(failed);
    oklc_free(message);
    return st;
}

oklc_status oklc_rt_cache_commit(const char *tmp, const char *entry, oklc_status st)
{
    if (!st)
        st = oklc_rt_cache_seal(tmp);
    if (!st) {
        st = oklc_rt_cache_publish(tmp, entry);
        char *failed = failed_path(entry);    /* a failure of this key is history */
        if (!st && failed)
            oklc_rt_remove_tree(failed);
        oklc_free(failed);
    } else if (tmp && st == OKLC_ERR_COMPILE) {
        st = keep_failure(tmp, entry, st);
    } else if (tmp) {
        oklc_rt_remove_tree(tmp);
    }
    return st;
}
