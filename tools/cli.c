/*
 * cli.c - what the command's parts share (tools/oklc.c, compile_commands.c):
 * options in every form they take, usage errors, and outputs written
 * atomically (a temporary file renamed into place), so a failed run never
 * leaves a partial file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

int cli_usage_error(const char *command, const char *fmt, const char *arg)
{
    fprintf(stderr, "oklc: error: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry '%s --help' for more information.\n", command);
    return 2;
}

/* The value of "-Xvalue", "-X value", "--opt=value" or "--opt value";
 * advances *i past what it used. NULL when there is none, or when a[] only
 * starts like the option ("--includes"). */
const char *cli_option_value(int argc, char **argv, int *i, const char *name)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n))
        return NULL;
    if (a[n] == '=' && name[1] == '-')
        return a + n + 1;
    if (a[n])
        return name[1] == '-' ? NULL : a + n;
    return *i + 1 < argc ? argv[++*i] : NULL;
}

/* Is a[] the option: "-Dfoo" matches -D; "--include=x" and "--include"
 * match --include. */
bool cli_is_option(const char *a, const char *name)
{
    size_t n = strlen(name);
    return !strncmp(a, name, n) && (!a[n] || a[n] == '=' || name[1] != '-');
}

/* Writes straight into what is not a regular file: /dev/null, a pipe. */
static bool write_special(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(text, 1, len, f) == len;
    ok = f && fclose(f) == 0 && ok;
    if (!ok)
        fprintf(stderr, "oklc: error: cannot write '%s': %s\n", path, strerror(errno));
    return ok;
}

/* Writes next to the destination, then renames: readers never see a
 * half-written file, and a failure leaves the old one as it was. */
bool cli_write_output(const char *path, const char *text, size_t len)
{
    if (!path)
        return fwrite(text, 1, len, stdout) == len && fflush(stdout) == 0;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return write_special(path, text, len);
    size_t n = strlen(path);
    char *tmp = malloc(n + 16);
    if (!tmp)
        return false;
    snprintf(tmp, n + 16, "%s.tmpXXXXXX", path);    /* mkstemp's template */
    int fd = mkstemp(tmp);
    mode_t mask = umask(0);
    umask(mask);
    if (fd >= 0)
        fchmod(fd, 0666 & ~mask);      /* mkstemp made it private */
    if (fd < 0) {
        fprintf(stderr, "oklc: error: cannot write '%s': %s\n", path, strerror(errno));
        free(tmp);
        return false;
    }
    FILE *f = fdopen(fd, "wb");
    bool ok = f && fwrite(text, 1, len, f) == len;
    ok = f && fclose(f) == 0 && ok;
    if (!f)
        close(fd);
    if (ok && rename(tmp, path) != 0)
        ok = false;
    if (!ok) {
        fprintf(stderr, "oklc: error: cannot write '%s': %s\n", path, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
    return ok;
}

int cli_mkdirs(const char *dir)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = path + 1;; p++) {
        if (*p && *p != '/')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return -1;
        if (!(*p = c))
            break;
    }
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : (errno = ENOTDIR, -1);
}

const char *cli_bytes(unsigned long long n, char buf[32])
{
    static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    double x = (double)n;
    int u = 0;
    while (x >= 1024 && u < 4)
        x /= 1024, u++;
    snprintf(buf, 32, u ? "%.1f %s" : "%.0f %s", x, unit[u]);
    return buf;
}
