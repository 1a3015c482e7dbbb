/*
 * cache.c - oklc cache list|show ID|clear|prune --older-than AGE
 *
 * The kernel cache as the runtime's oklc_cache_* calls see it: each entry
 * with its kernel, device kind, size, last use and input file; one entry's
 * description, build command and generated source; removing all, or what
 * was not used for a while.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "oklc/runtime.h"
#include "cli.h"
#include "cache.h"

const char oklc_cache_help[] =
    "usage: oklc cache list [--format text|json]\n"
    "       oklc cache show ID\n"
    "       oklc cache clear\n"
    "       oklc cache prune --older-than AGE\n"
    "\n"
    "The kernel cache ($OKLC_CACHE_DIR, else $XDG_CACHE_HOME/oklc, else\n"
    "~/.cache/oklc): what the runtime built, a folder per build named by its key.\n"
    "  list    each entry: its ID, device kind, kernel, size, last use, input file;\n"
    "          failed builds (their source and log, kept in failed/) marked so\n"
    "  show    one entry (ID: its key or a unique start of it): what it is, the\n"
    "          build command, the generated source, a failed build's log\n"
    "  clear   remove every entry, failed build and temporary folder, and the\n"
    "          command's precompiled prelude\n"
    "  prune   remove what was last used more than AGE ago: 30d, 12h, 45m, 90s\n"
    "          (a number alone: seconds)\n"
    "\n"
    "Options:\n"
    "  --format=FMT        (list) text (default) or json\n"
    "  --older-than AGE    (prune) the age\n"
    "  -h, --help          show this help\n";

static int usage(const char *fmt, const char *arg)
{
    return cli_usage_error("oklc cache", fmt, arg);
}

static int failure(void)
{
    fprintf(stderr, "oklc: error: %s\n", oklc_last_error());
    return 1;
}

static const char *when(int64_t t, char buf[32])
{
    time_t tt = (time_t)t;
    struct tm tm;
    strftime(buf, 32, "%Y-%m-%d %H:%M", localtime_r(&tt, &tm));
    return buf;
}

static int list(bool json)
{
    oklc_cache_entry *e;
    size_t n;
    char *dir;
    if (oklc_cache_dir(&dir) || oklc_cache_list(&e, &n))
        return failure();
    if (json) {
        cJSON *root = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(root, "entries");
        cJSON_AddStringToObject(root, "cache", dir);
        for (size_t i = 0; i < n; i++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "id", e[i].id);
            cJSON_AddStringToObject(o, "path", e[i].path);
            cJSON_AddStringToObject(o, "kernel", e[i].kernel);
            cJSON_AddStringToObject(o, "mode", e[i].mode);
            cJSON_AddStringToObject(o, "source", e[i].source);
            cJSON_AddNumberToObject(o, "bytes", (double)e[i].bytes);
            cJSON_AddNumberToObject(o, "last_used", (double)e[i].last_used);
            cJSON_AddBoolToObject(o, "failed", e[i].failed);
            cJSON_AddItemToArray(a, o);
        }
        char *text = cJSON_Print(root);
        puts(text ? text : "");
        free(text);
        cJSON_Delete(root);
    } else {
        uint64_t total = 0;
        char a[32], b[32];
        printf("%s: %zu entr%s\n", dir, n, n == 1 ? "y" : "ies");
        if (n)
            printf("%-12s %-8s %-24s %10s  %-16s  %s\n", "ID", "KIND", "KERNEL", "SIZE",
                   "LAST USED", "SOURCE");
        for (size_t i = 0; i < n; i++) {
            char kernel[300];
            snprintf(kernel, sizeof kernel, "%s%s", e[i].kernel[0] ? e[i].kernel : "?",
                     e[i].failed ? " (failed)" : "");
            printf("%-12.12s %-8s %-24s %10s  %-16s  %s\n", e[i].id,
                   e[i].mode[0] ? e[i].mode : "?", kernel, cli_bytes(e[i].bytes, a),
                   when(e[i].last_used, b), e[i].source[0] ? e[i].source : "?");
            total += e[i].bytes;
        }
        if (n)
            printf("%zu entr%s, %s\n", n, n == 1 ? "y" : "ies", cli_bytes(total, a));
    }
    free(e);
    free(dir);
    return 0;
}

/* Prints the file `name` of the folder, under a heading; false when missing. */
static bool print_file(const char *folder, const char *name, const char *heading)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", folder, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    printf("\n---- %s (%s) ----\n", heading, path);
    char buf[8192];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)))
        fwrite(buf, 1, got, stdout);
    fclose(f);
    return true;
}

static int show(const char *id)
{
    oklc_cache_entry *e;
    size_t n, match = 0, found = 0;
    if (strlen(id) < 4 || strspn(id, "0123456789abcdef") != strlen(id))
        return usage("'%s' is no entry ID (4 or more of its hex digits; oklc cache list)", id);
    if (oklc_cache_list(&e, &n))
        return failure();
    for (size_t i = 0; i < n; i++)
        if (!strncmp(e[i].id, id, strlen(id)))
            found = i, match++;
    if (match != 1) {
        fprintf(stderr, "oklc: error: %s entry of the cache has an ID that starts with '%s'%s\n",
                match ? "more than one" : "no", id,
                match ? ": give more of it" : " (oklc cache list)");
        free(e);
        return 1;
    }
    const oklc_cache_entry *x = &e[found];
    char a[32], b[32];
    printf("id         %s%s\nfolder     %s\nkernel     %s\nkind       %s\nsource     %s\n"
           "size       %s\nlast used  %s\n", x->id, x->failed ? " (a failed build)" : "",
           x->path, x->kernel, x->mode, x->source, cli_bytes(x->bytes, a),
           when(x->last_used, b));
    char path[4400], *text = NULL;
    snprintf(path, sizeof path, "%s/entry.json", x->path);
    FILE *f = fopen(path, "r");
    if (f) {
        text = calloc(1, 1 << 20);
        if (text)
            fread(text, 1, (1 << 20) - 1, f);
        fclose(f);
    }
    cJSON *o = text ? cJSON_Parse(text) : NULL;
    const char *cmd = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "command"));
    const char *opts = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(o, "device_options"));
    if (cmd && *cmd)
        printf("command    %s\n", cmd);
    if (opts && *opts)
        printf("device     %s\n", opts);
    cJSON_Delete(o);
    free(text);
    static const char *const sources[] = {"source.cpp", "source.cu", "source.hip", "source.cl"};
    for (size_t i = 0; i < sizeof sources / sizeof *sources; i++)
        print_file(x->path, sources[i], "the generated source");
    print_file(x->path, "launcher.cpp", "the host launcher");
    if (x->failed)
        print_file(x->path, "build.log", "the build's log");
    free(e);
    return 0;
}

/* 30d, 12h, 45m, 90s, 3600 as seconds; -1 when it is none of these. */
static long long parse_age(const char *v)
{
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (errno || end == v || n < 0)
        return -1;
    long long unit = !*end ? 1 : !strcmp(end, "s") ? 1 : !strcmp(end, "m") ? 60
                     : !strcmp(end, "h") ? 3600 : !strcmp(end, "d") ? 86400 : -1;
    return unit < 0 || n > (1ll << 40) ? -1 : n * unit;
}

static int removed_report(oklc_status st, size_t n, uint64_t bytes)
{
    if (st)
        return failure();
    char a[32];
    printf("removed %zu entr%s, %s\n", n, n == 1 ? "y" : "ies", cli_bytes(bytes, a));
    return 0;
}

int oklc_cmd_cache(int argc, char **argv)
{
    const char *sub = NULL, *id = NULL, *v;
    long long age = -1;
    bool json = false, format_given = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(oklc_cache_help, stdout);
            return 0;
        } else if (cli_is_option(a, "--format")) {
            if (!(v = cli_option_value(argc, argv, &i, "--format")) ||
                (strcmp(v, "text") && strcmp(v, "json")))
                return usage("--format needs text or json%s", "");
            json = !strcmp(v, "json"), format_given = true;
        } else if (cli_is_option(a, "--older-than")) {
            if (!(v = cli_option_value(argc, argv, &i, "--older-than")) ||
                (age = parse_age(v)) < 0)
                return usage("--older-than needs an age: 30d, 12h, 45m, 90s (%s)",
                             v ? v : "nothing given");
        } else if (a[0] == '-') {
            return usage("unknown option '%s'", a);
        } else if (!sub) {
            sub = a;
        } else if (!id && !strcmp(sub, "show")) {
            id = a;
        } else {
            return usage("unexpected argument '%s'", a);
        }
    }
    if (!sub)
        return usage("%s", "no subcommand (list, show, clear, prune)");
    if (format_given && strcmp(sub, "list"))
        return usage("%s", "--format only applies to list");
    if (age >= 0 && strcmp(sub, "prune"))
        return usage("%s", "--older-than only applies to prune");
    size_t n = 0;
    uint64_t bytes = 0;
    if (!strcmp(sub, "list"))
        return list(json);
    if (!strcmp(sub, "show"))
        return id ? show(id) : usage("%s", "show needs an entry ID (oklc cache list)");
    if (!strcmp(sub, "clear")) {
        oklc_status st = oklc_cache_clear(&n, &bytes);
        return removed_report(st, n, bytes);
    }
    if (!strcmp(sub, "prune")) {
        if (age < 0)
            return usage("%s", "prune needs --older-than AGE (30d, 12h, 45m, 90s)");
        oklc_status st = oklc_cache_prune(age, &n, &bytes);
        return removed_report(st, n, bytes);
    }
    return usage("unknown subcommand '%s' (list, show, clear, prune)", sub);
}
