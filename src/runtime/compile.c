/*
 * compile.c - finding the compiler and running it.
 *
 * The compiler is run through posix_spawnp with an argument vector, never
 * a shell: flags are split at blanks and nothing is quoted or expanded.
 * Its stdout and stderr come back through one pipe, in the order written,
 * into the build log and, when it fails, into the error message.
 */
#define _GNU_SOURCE    /* pipe2: the pipe must not leak into other threads' children */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt.h"

extern char **environ;

static atomic_long compiles;

long oklc_rt_compile_count(void)
{
    return atomic_load(&compiles);
}

void oklc_rt_count_compile(void)
{
    atomic_fetch_add(&compiles, 1);
}

static bool executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* name with a '/' is used as it is (made absolute); otherwise each folder
 * of PATH in turn. Symbolic links are kept: ccache and alternatives decide
 * what to run by the name they are called with. */
char *oklc_rt_find_program(const char *name)
{
    if (strchr(name, '/')) {
        if (!executable(name))
            return NULL;
        if (name[0] == '/')
            return oklc_rt_strdup(name);
        char cwd[4096];
        return getcwd(cwd, sizeof cwd) ? oklc_rt_path(cwd, name) : NULL;
    }
    const char *path = getenv("PATH");
    for (const char *p = path ? path : "/usr/bin:/bin";; p++) {
        size_t n = strcspn(p, ":");
        char *full = oklc_rt_format("%.*s/%s", (int)n, n ? p : ".", name);
        if (full && executable(full))
            return full;
        oklc_free(full);
        p += n;
        if (!*p)
            return NULL;
    }
}

const char *oklc_rt_default_compiler(const char **from)
{
    const char *name = oklc_rt_env("OKLC_CXX", "OCCA_CXX", from);
    if (!name)
        name = "c++", *from = "the default";
    return name;
}

oklc_status oklc_rt_compiler(Build *b)
{
    const char *name = b->props->compiler, *from = "the kernel's properties";
    if (!name || !*name)
        name = oklc_rt_default_compiler(&from);
    char *path = oklc_rt_find_program(name);
    if (!path)
        return oklc_rt_fail(OKLC_ERR_COMPILE,
                            "cannot find the compiler '%s' (from %s): %s", name, from,
                            strchr(name, '/') ? "no such executable file" : "not in PATH");
    oklc_status st = oklc_rt_cmd_add(b, path);
    oklc_free(path);
    return st;
}

/* Kernels are built where they run, so by default for this CPU, as OCCA's
 * release flags do: GCC and Clang vectorise for its widest registers and
 * use its FMA. POWER's GCC spells it -mcpu. The key then holds the CPU
 * (oklc_rt_cpu_identity), for caches that nodes of other kinds share. */
#if defined(__powerpc__) || defined(__powerpc64__)
#define DEFAULT_FLAGS "-O3 -mcpu=native"
#else
#define DEFAULT_FLAGS "-O3 -march=native"
#endif

oklc_status oklc_rt_compiler_flags(Build *b)
{
    const char *flags = b->props->flags;
    if (!flags)
        flags = getenv("OKLC_CXXFLAGS");    /* set but empty: no flags */
    if (!flags)
        flags = getenv("OCCA_CXXFLAGS");
    char *copy = oklc_rt_strdup(flags ? flags : DEFAULT_FLAGS);
    if (!copy)
        return oklc_rt_oom();
    oklc_status st = OKLC_OK;
    char *save;
    for (char *w = strtok_r(copy, " \t\n\r\v\f", &save); w && !st;
         w = strtok_r(NULL, " \t\n\r\v\f", &save))
        st = oklc_rt_cmd_add(b, w);
    oklc_free(copy);
    return st;
}

/* Reads fd to its end; *out is NULL when memory ran out. */
static void read_all(int fd, char **out)
{
    size_t cap = 4096, n = 0;
    char *buf = oklc_malloc(cap), scratch[4096];
    for (;;) {
        if (buf && cap - n < 2048) {
            char *bigger = oklc_realloc(buf, cap *= 2);
            if (!bigger)
                oklc_free(buf);
            buf = bigger;
        }
        ssize_t got = buf ? read(fd, buf + n, cap - n - 1) : read(fd, scratch, sizeof scratch);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        if (buf)
            n += (size_t)got;
    }
    if (buf)
        buf[n] = '\0';
    *out = buf;
}

static int wait_for(pid_t pid)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

oklc_status oklc_rt_spawn(const char *const argv[], char **output, int *exit_code)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return oklc_rt_fail(OKLC_ERR_IO, "cannot create a pipe: %s", strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    pid_t pid;
    /* posix_spawnp does not change argv; its prototype predates const */
    int e = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (e) {
        close(fds[0]);
        return oklc_rt_fail(OKLC_ERR_COMPILE, "cannot run '%s': %s", argv[0], strerror(e));
    }
    read_all(fds[0], output);
    close(fds[0]);
    *exit_code = wait_for(pid);
    return *output ? OKLC_OK : oklc_rt_oom();
}

/* A word a shell would take as it is needs no quotes. */
static bool plain(const char *s)
{
    return *s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                           "0123456789_-+=/.,:@%") == strlen(s);
}

char *oklc_rt_command_line(const char *const argv[])
{
    size_t n = 1;
    for (size_t i = 0; argv[i]; i++)
        n += 4 * strlen(argv[i]) + 3;    /* worst case: every byte is a quote */
    char *line = oklc_malloc(n), *p = line;
    if (!line)
        return NULL;
    for (size_t i = 0; argv[i]; i++) {
        if (i)
            *p++ = ' ';
        if (plain(argv[i])) {
            p = stpcpy(p, argv[i]);
            continue;
        }
        *p++ = '\'';
        for (const char *s = argv[i]; *s; s++) {
            if (*s == '\'')
                p = stpcpy(p, "'\\''");    /* end the quotes, a quoted quote, reopen */
            else
                *p++ = *s;
        }
        *p++ = '\'';
    }
    *p = '\0';
    return line;
}

static oklc_status failed(const char *what, const char *line, int code, const char *output,
                          const char *dir)
{
    char status[64];
    if (code < 0)
        snprintf(status, sizeof status, "was killed");
    else
        snprintf(status, sizeof status, "exited with status %d", code);
    return oklc_rt_fail(OKLC_ERR_COMPILE,
                        "cannot compile the kernel source of '%s': the compiler %s\n"
                        "command: %s\n(the source and its log stay in %s)\n%s",
                        what, status, line, dir, output);
}

oklc_status oklc_rt_run_compiler(const char *const argv[], const char *dir, const char *what)
{
    char *line = oklc_rt_command_line(argv), *log_path = oklc_rt_path(dir, "build.log");
    char *output = NULL, *log = NULL;
    int code = 0;
    oklc_status st = line && log_path ? OKLC_OK : oklc_rt_oom();
    if (!st && oklc_rt_verbose())
        fprintf(stderr, "oklc: compiling: %s\n", line);
    if (!st) {
        atomic_fetch_add(&compiles, 1);
        st = oklc_rt_spawn(argv, &output, &code);
    }
    if (!st)
        log = oklc_rt_format("%s\n%s", line, output);
    if (!st && !log)
        st = oklc_rt_oom();
    if (!st)    /* appended: a GPU entry's log has the device build before */
        st = oklc_rt_append_file(log_path, log, strlen(log));
    if (!st && code != 0)
        st = failed(what, line, code, output, dir);
    oklc_free(line);
    oklc_free(log_path);
    oklc_free(output);
    oklc_free(log);
    return st;
}

oklc_status oklc_rt_compile_file(const Build *b, const char *dir, const char *src,
                                 const char *out)
{
    char *src_path = oklc_rt_path(dir, src), *out_path = oklc_rt_path(dir, out);
    const char **argv = oklc_malloc((b->ncmd + 4) * sizeof *argv);
    oklc_status st = src_path && out_path && argv ? OKLC_OK : oklc_rt_oom();
    if (!st) {
        memcpy(argv, b->cmd, b->ncmd * sizeof *argv);
        argv[b->ncmd] = src_path;
        argv[b->ncmd + 1] = "-o";
        argv[b->ncmd + 2] = out_path;
        argv[b->ncmd + 3] = NULL;
        st = oklc_rt_run_compiler(argv, dir, b->path);
    }
    oklc_free(argv);
    oklc_free(src_path);
    oklc_free(out_path);
    return st;
}
