/*
 * compile_commands.c - oklc compile-commands [options] DIR
 *
 * Writes DIR/compile_commands.json with one entry per .okl file under DIR
 * (recursively, sorted, names starting with '.' skipped), so that clangd
 * reads an OKL 2.0 kernel as `oklc check` makes Clang read it: C++17, the
 * prelude okl.hpp force-included, the macros oklc predefines for the
 * backend (-b), then the user's -D, -U, -I and --include, in order.
 * The prelude is the installed header next to the executable
 * (<bin>/../include/oklc/okl.hpp), else the copy compiled into oklc,
 * written to DIR/.oklc/okl.hpp. Files still in OKL 1.0 (@outer) are listed
 * too, with one note saying how to convert them (docs/editors.md).
 * Every file is written atomically. Exit status: 0, 1 error, 2 wrong usage.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "oklc/oklc.h"
#include "cli.h"
#include "compile_commands.h"

/* The prelude's text, compiled into liboklc by scripts/embed.cmake. */
extern const char oklc_prelude[];
extern const unsigned long oklc_prelude_len;

/* A growable list of malloc'ed strings. */
typedef struct Strings {
    char **data;
    size_t len, cap;
} Strings;

typedef struct Config {
    Strings flags;          /* -D, -U, -I, --include as Clang arguments, in order */
    oklc_backend backend;
    const char *dir;        /* DIR as given */
} Config;

static const char help_text[] =
    "usage: oklc compile-commands [options] DIR\n"
    "\n"
    "Writes DIR/compile_commands.json for the .okl files under DIR, so that clangd\n"
    "checks OKL 2.0 kernels as C++ with okl.hpp, as 'oklc check' parses them.\n"
    "\n"
    "Options (applied to every file, as for the other commands):\n"
    "  -D NAME[=VALUE]      define a macro\n"
    "  -U NAME              undefine a macro\n"
    "  -I DIR               search DIR for \"...\" includes\n"
    "  --include FILE       include FILE before the kernel\n"
    "  -b, --backend NAME   predefine the backend's macros (serial, openmp, cuda, hip,\n"
    "                       opencl, dpcpp, metal)\n"
    "  -h, --help           show this help\n"
    "\n"
    "See docs/editors.md. Exit status: 0 ok, 1 error, 2 wrong usage.\n";

static int usage_error(const char *fmt, const char *arg)
{
    return cli_usage_error("oklc compile-commands", fmt, arg);
}

/* ---- small helpers ------------------------------------------------------------- */


/* Prints "oklc: error: ..." and gives the exit status 1. */
static int error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "oklc: error: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

/* A malloc'ed formatted string; NULL when memory runs out. */
static char *str_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s) {
        va_start(ap, fmt);
        vsnprintf(s, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    return s;
}

/* Appends s (taking it over); false, with s freed, when memory runs out. */
static bool push(Strings *l, char *s)
{
    if (s && l->len == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        char **d = realloc(l->data, cap * sizeof *d);
        if (!d) {
            free(s);
            return false;
        }
        l->data = d;
        l->cap = cap;
    }
    if (s)
        l->data[l->len++] = s;
    return s != NULL;
}

static void strings_free(Strings *l)
{
    for (size_t i = 0; i < l->len; i++)
        free(l->data[i]);
    free(l->data);
    *l = (Strings){0};
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The whole file, NUL-terminated; NULL (errno set) when it cannot be read. */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 65536, n = 0, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        char *nb = n + 1 == cap ? realloc(buf, cap *= 2) : buf;
        if (!nb)
            free(buf);
        buf = nb;
    }
    bool failed = !buf || ferror(f);
    fclose(f);
    if (failed) {
        free(buf);
        errno = errno ? errno : ENOMEM;
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}


/* ---- options ---------------------------------------------------------------------- */



/* An absolute path for a relative one given on the command line: the
 * entries' "directory" is DIR, not the folder oklc ran in. A missing
 * --include file stays as given (oklc and Clang then search -I). */
static char *absolute(const char *path, bool must_exist)
{
    char cwd[PATH_MAX];
    if (path[0] == '/' || (must_exist && access(path, F_OK) != 0) || !getcwd(cwd, sizeof cwd))
        return strdup(path);
    return str_printf("%s/%s", cwd, path);
}

/* -b NAME: a built-in backend (a plugin's adds no macros oklc predefines). */
static int parse_backend(const char *v, Config *cfg)
{
    oklc_backend b;
    if (!oklc_backend_from_name(v, &b) || b == OKLC_BACKEND_NONE)
        return usage_error("unknown backend '%s' (serial, openmp, cuda, hip, opencl, dpcpp, "
                           "metal)", v);
    cfg->backend = b;
    return 0;
}

/* One option at argv[*i] that takes a value; 0, or the exit status. */
static int parse_option(int argc, char **argv, int *i, Config *cfg)
{
    static const struct {
        const char *name, *flag, *needs;
    } opts[] = {
        {"-D", "-D", "a macro definition"},   {"-U", "-U", "a macro name"},
        {"-I", "-I", "a folder"},             {"--include", "-include", "a file name"},
        {"--backend", NULL, "a backend name"}, {"-b", NULL, "a backend name"},
    };
    const char *a = argv[*i];
    for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++) {
        if (!cli_is_option(a, opts[k].name))
            continue;
        const char *v = cli_option_value(argc, argv, i, opts[k].name);
        if (!v || !*v) {
            fprintf(stderr, "oklc: error: option '%s' needs %s\n", opts[k].name, opts[k].needs);
            fprintf(stderr, "Try 'oklc compile-commands --help' for more information.\n");
            return 2;
        }
        if (!opts[k].flag)
            return parse_backend(v, cfg);
        if (!strcmp(opts[k].flag, "-include"))    /* a separate argument, as Clang wants */
            return push(&cfg->flags, strdup("-include")) &&
                   push(&cfg->flags, absolute(v, true)) ? 0 : error("out of memory");
        char *path = !strcmp(opts[k].flag, "-I") ? absolute(v, false) : NULL;
        char *flag = str_printf("%s%s", opts[k].flag, path ? path : v);
        free(path);
        return push(&cfg->flags, flag) ? 0 : error("out of memory");
    }
    return usage_error("option '%s' does not apply to compile-commands (-D, -U, -I, "
                       "--include, -b)", a);
}

static int parse(int argc, char **argv, Config *cfg)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int status;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(help_text, stdout);
            return -1;
        } else if (a[0] != '-' || !a[1]) {
            if (cfg->dir)
                return usage_error("more than one folder ('%s')", a);
            cfg->dir = a;
        } else if ((status = parse_option(argc, argv, &i, cfg))) {
            return status;
        }
    }
    if (!cfg->dir)
        return usage_error("%s", "no folder given: oklc compile-commands [options] DIR");
    return 0;
}

/* ---- the kernels ------------------------------------------------------------------ */

static bool is_kernel(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && !strcmp(name + n - 4, ".okl");
}

/* Files and folders of one folder: folders go on the stack, .okl files
 * (or links to them) into *files. Links to folders are not followed, so a
 * link to a parent cannot make the walk endless. */
static bool scan_folder(const char *dir, Strings *stack, Strings *files)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "oklc: warning: cannot read folder '%s' (skipped): %s\n", dir,
                strerror(errno));
        return true;
    }
    bool ok = true;
    for (struct dirent *e; ok && (e = readdir(d));) {
        struct stat st;
        if (e->d_name[0] == '.')              /* hidden, ".", "..", our .oklc */
            continue;
        char *path = str_printf("%s/%s", dir, e->d_name);
        Strings *to = NULL;
        if (!path || lstat(path, &st) != 0)
            ok = path != NULL;                /* gone since readdir: nothing to list */
        else if (S_ISDIR(st.st_mode))
            to = stack;
        else if (is_kernel(e->d_name) && (S_ISREG(st.st_mode) ||
                                          (stat(path, &st) == 0 && S_ISREG(st.st_mode))))
            to = files;
        if (to)
            ok = push(to, path);
        else
            free(path);
    }
    closedir(d);
    return ok;
}

/* Every .okl file under root, sorted. An explicit stack, not recursion:
 * a folder tree may be deeper than a C stack likes. */
static bool find_kernels(const char *root, Strings *files)
{
    Strings stack = {0};
    bool ok = push(&stack, strdup(root));
    while (ok && stack.len) {
        char *dir = stack.data[--stack.len];
        ok = scan_folder(dir, &stack, files);
        free(dir);
    }
    strings_free(&stack);
    if (ok && files->len)    /* qsort wants a list, even of nothing */
        qsort(files->data, files->len, sizeof *files->data, by_name);
    return ok;
}

/* A string or character literal from its quote: the index after it. One
 * left open ends at the line's end (an apostrophe in an #error line). */
static size_t skip_literal(const char *s, size_t n, size_t i)
{
    char q = s[i];
    for (i++; i < n && s[i] != q && s[i] != '\n'; i++)
        if (s[i] == '\\')
            i++;
    return i + 1;
}

/* A raw string literal R"delim( ... )delim" from its '"': the index after
 * it. The delimiter has at most 16 characters. */
static size_t skip_raw_string(const char *s, size_t n, size_t i)
{
    size_t open = i + 1;
    while (open < n && open - i <= 17 && s[open] != '(')
        open++;
    if (open >= n || s[open] != '(')
        return skip_literal(s, n, i);     /* not a raw string after all */
    size_t dl = open - i - 1;             /* the delimiter: s[i + 1 .. open) */
    for (size_t k = open + 1; k + dl + 1 < n; k++)
        if (s[k] == ')' && !memcmp(s + k + 1, s + i + 1, dl) && s[k + dl + 1] == '"')
            return k + dl + 2;
    return n;
}

/* A pp-number from its first digit: the index after it. Its ' are digit
 * separators (1'000), not character literals. */
static size_t skip_number(const char *s, size_t n, size_t i)
{
    for (i++; i < n; i++) {
        bool sign = (s[i] == '+' || s[i] == '-') && strchr("eEpP", s[i - 1]);
        if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '\'' && s[i] != '.' && !sign)
            break;
    }
    return i;
}

/* An identifier: the index after it, or after the raw string it prefixes. */
static size_t skip_identifier(const char *s, size_t n, size_t i)
{
    static const char *const raw[] = {"R", "LR", "uR", "UR", "u8R"};
    size_t start = i;
    while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_'))
        i++;
    for (size_t k = 0; i < n && s[i] == '"' && k < sizeof raw / sizeof raw[0]; k++)
        if (strlen(raw[k]) == i - start && !memcmp(s + start, raw[k], i - start))
            return skip_raw_string(s, n, i);
    return i;
}

/* Whether the text has an '@' outside comments and literals: OKL 1.0's
 * attributes (@kernel, @outer), which no C++ compiler reads. Numbers and
 * identifiers are skipped whole: a ' in a number is a digit separator, and
 * an identifier may prefix a raw string, which may hold anything. */
static bool uses_okl1(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        char ch = s[i];
        if (ch == '@')
            return true;
        if (ch == '/' && i + 1 < n && s[i + 1] == '/') {
            for (i += 2; i < n && (s[i] != '\n' || s[i - 1] == '\\'); i++)
                ;    /* a line comment goes on after a backslash-newline */
        } else if (ch == '/' && i + 1 < n && s[i + 1] == '*') {
            const char *end = strstr(s + i + 2, "*/");
            i = end ? (size_t)(end - s) + 2 : n;
        } else if (ch == '"' || ch == '\'') {
            i = skip_literal(s, n, i);
        } else if (isdigit((unsigned char)ch)) {
            i = skip_number(s, n, i);
        } else if (isalpha((unsigned char)ch) || ch == '_') {
            i = skip_identifier(s, n, i);
        } else {
            i++;
        }
    }
    return false;
}

/* Whether the kernel includes the system's math header: oklc's parse then
 * defines OKLC_PRELUDE_SYSTEM_MATH (clang_text in src/parse/clang.c), and
 * the prelude takes its math from <cmath>. */
static bool math_include(const char *line)
{
    static const char *const names[] = {"<cmath>", "<math.h>", "<cstdlib>", "<stdlib.h>"};
    const char *p = line + strspn(line, " \t");
    if (*p != '#')
        return false;
    p += 1 + strspn(p + 1, " \t");
    if (strncmp(p, "include", 7))
        return false;
    p += 7 + strspn(p + 7, " \t");
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (!strncmp(p, names[k], strlen(names[k])))
            return true;
    return false;
}

static bool includes_math(const char *text)
{
    for (const char *line = text; line; line = strchr(line, '\n')) {
        line += *line == '\n';
        if (math_include(line))
            return true;
    }
    return false;
}

/* ---- the prelude ------------------------------------------------------------------ */

/* <bin>/../include/oklc/okl.hpp of the running executable, where
 * `cmake --install` puts the header (cmake/install.cmake); NULL if absent. */
static char *installed_prelude(void)
{
    char exe[PATH_MAX], path[PATH_MAX + 32];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = 0;
    snprintf(path, sizeof path, "%s/../include/oklc/okl.hpp", exe);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return NULL;
    return realpath(path, NULL);
}

/* DIR/.oklc/okl.hpp: the prelude compiled into oklc, written when it is
 * not there already as it is (rewriting would make clangd rebuild). */
static char *embedded_prelude(const char *dir)
{
    char *folder = str_printf("%s/.oklc", dir);
    char *path = str_printf("%s/.oklc/okl.hpp", dir);
    size_t len = 0;
    char *old = path ? read_file(path, &len) : NULL;
    bool same = old && len == oklc_prelude_len && !memcmp(old, oklc_prelude, len);
    bool ok = folder && path;
    if (!ok) {
        error("out of memory");
    } else if (!same && mkdir(folder, 0777) != 0 && errno != EEXIST) {
        error("cannot make folder '%s': %s", folder, strerror(errno));
        ok = false;
    } else if (!same) {
        ok = cli_write_output(path, oklc_prelude, oklc_prelude_len);
    }
    free(old);
    free(folder);
    if (!ok) {
        free(path);
        return NULL;
    }
    return path;
}

/* ---- the entries ------------------------------------------------------------------ */

/* What every entry starts with: the language oklc's parse uses
 * (oklc_parse in src/parse/clang.c: C++17, the prelude force-included, the
 * warnings it turns off, as OKL's attributes are unknown to Clang), then
 * the macros oklc's preprocessor predefines (builtin_text in src/pp/pp.c),
 * so that #if blocks take the branches `oklc check -b NAME` takes. */
static bool common_arguments(Strings *a, const char *prelude, oklc_backend backend)
{
    static const char *const fixed[] = {
        "clang++", "-x", "c++", "-std=c++17", "-include", NULL,
        "-Wno-unknown-attributes", "-Wno-unknown-pragmas", "-Wno-ignored-attributes",
        "-D__OKL__=1", "-D__OCCA__=1", "-DOKL_VERSION=20000", "-DOKL_MAJOR_VERSION=2",
        "-DOKL_MINOR_VERSION=0", "-DOKL_PATCH_VERSION=0",
    };
    bool ok = true;
    for (size_t i = 0; ok && i < sizeof fixed / sizeof fixed[0]; i++)
        ok = push(a, strdup(fixed[i] ? fixed[i] : prelude));
    ok = ok && push(a, str_printf("-DOKLC_VERSION=%d", OKLC_VERSION_MAJOR * 10000 +
                                                           OKLC_VERSION_MINOR * 100 +
                                                           OKLC_VERSION_PATCH));
    for (int b = OKLC_BACKEND_SERIAL; ok && b < OKLC_BACKEND_COUNT_; b++) {
        char name[32];
        snprintf(name, sizeof name, "%s", oklc_backend_name((oklc_backend)b));
        for (char *p = name; *p; p++)
            *p = (char)toupper((unsigned char)*p);
        ok = push(a, str_printf("-DOCCA_USE_%s=%d", name, b == (int)backend));
        if (ok && b == (int)backend)    /* okl.hpp's CUDA/HIP builtins test these too */
            ok = push(a, str_printf("-DOKLC_BACKEND_%s=1", name));
    }
    return ok;
}

static bool add_string(cJSON *array, const char *s)
{
    return cJSON_AddItemToArray(array, cJSON_CreateString(s));
}

/* {"directory": DIR, "file": FILE, "arguments": [common..., (math),
 * the user's flags..., FILE]} */
static cJSON *entry(const Strings *common, const Strings *flags, const char *dir,
                    const char *file, bool math)
{
    cJSON *e = cJSON_CreateObject(), *args = cJSON_CreateArray();
    bool ok = e && args && cJSON_AddStringToObject(e, "directory", dir) &&
              cJSON_AddStringToObject(e, "file", file);
    for (size_t i = 0; ok && i < common->len; i++)
        ok = add_string(args, common->data[i]);
    ok = ok && (!math || add_string(args, "-DOKLC_PRELUDE_SYSTEM_MATH"));
    for (size_t i = 0; ok && i < flags->len; i++)
        ok = add_string(args, flags->data[i]);
    ok = ok && add_string(args, file);
    if (ok && cJSON_AddItemToObject(e, "arguments", args))
        return e;
    cJSON_Delete(args);
    cJSON_Delete(e);
    return NULL;
}

/* The entries of the files, in order; counts those in OKL 1.0 and keeps
 * the first one's name. NULL on an error (reported). */
static cJSON *entries(const Strings *common, const Strings *flags, const char *dir,
                      const Strings *files, size_t *nold, const char **first_old)
{
    cJSON *list = cJSON_CreateArray();
    for (size_t i = 0; list && i < files->len; i++) {
        const char *file = files->data[i];
        size_t len;
        char *text = read_file(file, &len);
        if (!text) {
            error("cannot read '%s': %s", file, strerror(errno));
            cJSON_Delete(list);
            return NULL;
        }
        if (uses_okl1(text, len) && (*nold)++ == 0)
            *first_old = file;
        cJSON *e = entry(common, flags, dir, file, includes_math(text));
        free(text);
        if (!cJSON_AddItemToArray(list, e)) {
            cJSON_Delete(e);
            cJSON_Delete(list);
            list = NULL;
        }
    }
    if (!list)
        error("out of memory");
    return list;
}

/* ---- the command ------------------------------------------------------------------ */

/* DIR as an absolute path, after checking it is a folder we may write in. */
static char *check_folder(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        error("cannot open folder '%s': %s", dir, strerror(errno));
    else if (!S_ISDIR(st.st_mode))
        error("'%s' is not a folder", dir);
    else if (access(dir, W_OK | X_OK) != 0)
        error("cannot write in folder '%s': %s", dir, strerror(errno));
    else
        return realpath(dir, NULL);
    return NULL;
}

/* The JSON for the kernels, written to DIR/compile_commands.json. */
static bool write_database(const Config *cfg, const char *dir, const Strings *files,
                           const char *prelude)
{
    Strings common = {0};
    size_t nold = 0;
    const char *first_old = NULL;
    cJSON *list = NULL;
    if (!common_arguments(&common, prelude, cfg->backend))
        error("out of memory");
    else
        list = entries(&common, &cfg->flags, dir, files, &nold, &first_old);
    char *json = list ? cJSON_Print(list) : NULL;
    char *text = json ? str_printf("%s\n", json) : NULL;
    char *path = text ? str_printf("%s/compile_commands.json", dir) : NULL;
    bool ok = path && cli_write_output(path, text, strlen(text));
    if (list && !path)
        error("out of memory");
    if (ok && nold)
        fprintf(stderr, "oklc: note: %zu of the %zu files use%s OKL 1.0 '@' attributes, "
                        "which clangd cannot read (the first: %s); convert each to OKL 2.0 "
                        "with 'oklc normalize --keep-macros FILE'\n",
                nold, files->len, nold == 1 ? "s" : "", first_old);
    free(path);
    free(text);
    free(json);
    cJSON_Delete(list);
    strings_free(&common);
    return ok;
}

int oklc_cmd_compile_commands(int argc, char **argv)
{
    Config cfg = {.backend = OKLC_BACKEND_NONE};
    Strings files = {0};
    char *dir = NULL, *prelude = NULL;
    int status = parse(argc, argv, &cfg);
    if (status < 0)
        status = 0;                       /* --help */
    else if (!status && !(dir = check_folder(cfg.dir)))
        status = 1;
    else if (!status && !find_kernels(dir, &files))
        status = error("out of memory");
    else if (!status && files.len == 0)
        status = error("no .okl files under '%s'", cfg.dir);
    else if (!status && !(prelude = installed_prelude()) && !(prelude = embedded_prelude(dir)))
        status = 1;
    else if (!status && !write_database(&cfg, dir, &files, prelude))
        status = 1;
    free(prelude);
    free(dir);
    strings_free(&files);
    strings_free(&cfg.flags);
    return status;
}
