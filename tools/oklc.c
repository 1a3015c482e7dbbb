/*
 * oklc - the command: oklc <command> [options] FILE
 *
 * Parses options, runs one stage through the public API, prints messages,
 * and writes the output atomically (a temporary file renamed into place), so
 * a failed run never leaves a partial output file.
 * Exit status: 0 success, 1 errors in the input, 2 wrong usage.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oklc/oklc.h"
#include "oklc/runtime.h"
#include "cli.h"
#include "compile_commands.h"
#include "info.h"
#include "cache.h"

#define COUNTOF(a) (sizeof(a) / sizeof((a)[0]))

static int usage_error(const char *fmt, const char *arg)
{
    return cli_usage_error("oklc", fmt, arg);
}

/* The commands, as `oklc --help` lists them and `oklc help CMD` shows one. */
static const struct Command {
    const char *name, *args, *summary;
} commands[] = {
    {"normalize", "[options] FILE",
     "print the kernel with OKL attributes in C++ form:\n"
     "@outer -> [[okl::outer]] (the OKL 1.0 -> 2.0 migration)"},
    {"preprocess", "[options] FILE", "print the kernel after the preprocessor (like cc -E)"},
    {"check", "[options] FILE",
     "parse the kernel with Clang and check every OKL rule; prints\n"
     "nothing when all is well (with --dump-model: the kernel model)"},
    {"transpile", "-b BACKEND [options] FILE  (or --out-dir DIR FILE...)",
     "translate the kernel for a backend (-b serial, openmp, cuda,\n"
     "hip, opencl, dpcpp, metal): the backend's source, with --metadata\n"
     "its JSON metadata, with --launcher its host launcher (GPU backends)"},
    {"stats", "[options] FILE",
     "count what each kernel does: floating-point operations by kind and\n"
     "precision, global and @shared loads and stores (and bytes),\n"
     "atomics, barriers, blocks and threads, arithmetic intensity; as\n"
     "formulas in the integer parameters, numbers with --param\n"
     "(docs/stats.md)"},
    {"compile-commands", "[options] DIR",
     "write DIR/compile_commands.json for the .okl files under DIR, so\n"
     "that clangd checks them as C++ with okl.hpp (-D, -I, --include\n"
     "and -b apply to every file; docs/editors.md)"},
    {"info", "[--format text|json]",
     "list the devices oklc finds: name, vendor, architecture, memory,\n"
     "compute units, block limits"},
    {"cache", "list|show ID|clear|prune --older-than AGE",
     "the kernel cache: its entries (kernel, kind, size, last use, input),\n"
     "one entry's command and generated source, removing all or the old"},
    {"help", "[COMMAND]", "show this help, or a command's"},
};

/* Each option and the commands it applies to (NULL: the five that read a
 * kernel: normalize, preprocess, check, transpile, stats). */
static const struct Option {
    const char *text, *commands;
} options[] = {
    {"  -o FILE              write the output to FILE instead of standard output\n", NULL},
    {"  -D NAME[=VALUE]      define a macro; function-like: -D 'F(a,b)=a+b'\n", NULL},
    {"  -U NAME              undefine a macro\n", NULL},
    {"  -I DIR               search DIR for \"...\" includes (after the including file's "
     "folder)\n", NULL},
    {"  --include FILE       include FILE before the kernel (OCCA's \"includes\" property)\n",
     NULL},
    {"  -b, --backend NAME   the backend (transpile), whose macros are predefined: serial,\n"
     "                       openmp, cuda, hip, opencl, dpcpp, metal (case-insensitive),\n"
     "                       or one a plugin adds\n", NULL},
    {"  --intrinsics FILE    (check, transpile) add or replace intrinsics: a JSON file\n"
     "                       (docs/intrinsics.md; repeatable, a later one wins)\n",
     "check transpile"},
    {"  --plugin FILE        load a plugin (a shared object, docs/plugins.md) first\n"
     "                       (repeatable; after those of $OKLC_PLUGINS, a ':' list)\n", NULL},
    {"  --metadata FILE      (transpile) write the kernels' metadata (JSON) to FILE\n",
     "transpile"},
    {"  --launcher FILE      (transpile: cuda, hip, opencl, dpcpp, metal) write the host\n"
     "                       launcher to FILE\n", "transpile"},
    {"  --cpu-rewrites=WHEN  (transpile: serial, openmp) on (default): the loops reshaped\n"
     "                       for a CPU where a cost estimate says it pays (fusion,\n"
     "                       interchange, ...); off: the plain translation\n", "transpile"},
    {"  --count-ops          (transpile: serial) counters in the output: each flop and\n"
     "                       each load and store adds to _occa_counts[] as it runs,\n"
     "                       to check oklc stats (docs/stats.md)\n", "transpile"},
    {"  --convention=WHOSE   (transpile) whose runtime calls the output: oklc (default) or\n"
     "                       occa (OCCA's argument passing, launchers and metadata schema;\n"
     "                       docs/occa.md)\n", "transpile"},
    {"  --launcher-metadata FILE\n"
     "                       (transpile --convention=occa, GPU backends) write the\n"
     "                       launcher's metadata (JSON) to FILE\n", "transpile"},
    {"  --depfile FILE       write to FILE a Make rule: the output (-o, needed) depends on\n"
     "                       the kernel, every file it includes, and the --include,\n"
     "                       --intrinsics and --plugin files (for build systems)\n", NULL},
    {"  --out-dir DIR        (transpile) several FILEs in one process: each one's output,\n"
     "                       metadata, launcher (GPU backends) and depfile in DIR as\n"
     "                       NAME.BACKEND.EXT, .json, .launcher.cpp, .EXT.d; with\n"
     "                       --depfile, one rule for all of them\n", "transpile"},
    {"  --instance K<ARGS>   (transpile) instantiate template kernel K: 'scale<float, 8>'\n"
     "                       (repeatable)\n", "transpile"},
    {"  --keep-macros        normalize without expanding macros or includes, keeping\n"
     "                       directives as written (for converting a kernel once)\n",
     "normalize"},
    {"  --dump-model         (check) print the kernel model: kernels, parameters,\n"
     "                       loops with axes and iteration counts, ...; with -b serial\n"
     "                       or openmp, then each CPU rewrite applied or refused, and why\n",
     "check"},
    {"  --param NAME=VALUE   (stats) the value of an integer parameter (repeatable)\n", "stats"},
    {"  --format=FMT         (stats) text (default) or json\n", "stats"},
    {"  --machine bw=B,flops=F\n"
     "                       (stats) a device's memory bandwidth (bytes/s) and peak\n"
     "                       (flop/s): each kernel's footprint (distinct bytes of its\n"
     "                       arrays) and roofline, a lower bound on its time\n",
     "stats"},
    {"  --clang-arg=ARG      pass ARG to Clang when it parses the kernel (repeatable):\n"
     "                       --clang-arg=-std=c++20, --clang-arg=-Werror\n", NULL},
    {"  -Wall                also report advice (e.g. @inner loops of different sizes)\n",
     NULL},
    {"  --diagnostics=FMT    text (default) or json\n", NULL},
    {"  --color=WHEN         colour messages: auto (default, on a terminal), always, never\n",
     NULL},
    {"  -Werror              treat warnings as errors\n", NULL},
    {"  -h, --help           show this help\n", ""},
    {"  --version            show the version, libclang's, the backends and the compilers\n"
     "                       found\n", ""},
};

static const char usage_more[] =
    "\nRun 'oklc help COMMAND' or 'oklc COMMAND --help' for one command's options.\n";

static const char usage_end[] =
    "\nFILE may be '-' for standard input. Exit status: 0 ok, 1 errors in the input,\n"
    "2 wrong usage.\n";

/* Does the option apply to the command? */
static bool applies(const struct Option *o, const char *command)
{
    if (!o->commands)
        return strcmp(command, "compile-commands") && strcmp(command, "info") &&
               strcmp(command, "cache") && strcmp(command, "help");
    size_t n = strlen(command);
    for (const char *p = strstr(o->commands, command); p; p = strstr(p + 1, command))
        if ((p == o->commands || p[-1] == ' ') && (!p[n] || p[n] == ' '))
            return true;
    return !*o->commands;    /* "": every command */
}

/* `oklc --version`: oklc's, libclang's, the backends, the compilers found. */
static void version(void)
{
    printf("oklc %s\nlibclang: %s\nbackends:", oklc_version(), oklc_libclang_version());
    for (int b = OKLC_BACKEND_NONE + 1; b < OKLC_BACKEND_COUNT_; b++)
        printf(" %s", oklc_backend_name((oklc_backend)b));
    printf(" (and those of plugins)\n");
    char *tools = oklc_runtime_toolchain();
    fputs(tools ? tools : "", stdout);
    free(tools);
}

/* `oklc --help`: the commands and every option. */
static void usage(void)
{
    fputs("usage: oklc <command> [options] FILE\n\nCommands:\n", stdout);
    for (size_t i = 0; i < COUNTOF(commands); i++) {
        const char *c = commands[i].summary;
        printf("  %-12s ", commands[i].name);
        if (strlen(commands[i].name) > 12)
            printf("\n%15s", "");
        for (const char *nl; (nl = strchr(c, '\n')); c = nl + 1)
            printf("%.*s\n%15s", (int)(nl - c), c, "");
        printf("%s\n", c);
    }
    fputs("\nOptions:\n", stdout);
    for (size_t i = 0; i < COUNTOF(options); i++)
        fputs(options[i].text, stdout);
    fputs(usage_end, stdout);
    fputs(usage_more, stdout);
}

/* `oklc help CMD`, `oklc CMD --help`: the command and its options; 2 for
 * no such command. */
static int command_help(const char *name)
{
    if (!strcmp(name, "compile-commands")) {
        char name0[] = "compile-commands", help[] = "--help", *argv[] = {name0, help, NULL};
        return oklc_cmd_compile_commands(2, argv);
    }
    if (!strcmp(name, "info") || !strcmp(name, "cache")) {
        fputs(name[0] == 'i' ? oklc_info_help : oklc_cache_help, stdout);
        return 0;
    }
    const struct Command *c = NULL;
    for (size_t i = 0; i < COUNTOF(commands) && !c; i++)
        c = !strcmp(commands[i].name, name) ? &commands[i] : NULL;
    if (!c)
        return usage_error("unknown command '%s' (normalize, preprocess, check, transpile, "
                           "stats, compile-commands, info, cache, help)", name);
    if (!strcmp(name, "help")) {
        usage();
        return 0;
    }
    printf("usage: oklc %s %s\n\n%s\n\nOptions:\n", c->name, c->args, c->summary);
    for (size_t i = 0; i < COUNTOF(options); i++)
        if (applies(&options[i], name))
            fputs(options[i].text, stdout);
    fputs(usage_end, stdout);
    return 0;
}

typedef struct Options {
    const char *command;
    const char *input;
    const char *output;
    const char *metadata;
    const char *launcher;
    const char *launcher_metadata;
    bool occa;                     /* --convention=occa */
    bool rewrites_given;           /* --cpu-rewrites */
    const char *depfile;
    bool backend_given;
    const char *backend;
    oklc_backend backend_id;
    const char *backend_plugin;    /* -b NAME not built in: a plugin's, resolved later */
    const char **plugins;          /* --plugin, in order */
    int nplugins;
    const char **intrinsics;       /* --intrinsics, in order (after the plugins) */
    int nintrinsics;
    bool keep_macros;
    bool dump_model;
    bool json;
    int color;      /* -1 auto, 0 never, 1 always */
    oklc_stats_param *params;      /* --param, in order */
    oklc_stats_options stats;      /* --format, --machine */
    bool stats_given;              /* one of them */
    bool count_ops;                /* --count-ops */
    const char **inputs;           /* the files given; more than one with --out-dir */
    int ninputs;
    const char *out_dir;           /* --out-dir: each input's outputs there */
    char *out_paths[4];            /* their names (batch_outputs) */
    bool clash;                    /* an output is an input or another output */
} Options;

/* bw=3.3e12,flops=6.7e13 */
static bool machine(const char *v, oklc_stats_options *s)
{
    double bw = 0, fl = 0;
    char *copy = strdup(v), *save = NULL;
    bool ok = copy != NULL;
    for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t && ok;
         t = strtok_r(NULL, ",", &save)) {
        char *end;
        double *into = !strncmp(t, "bw=", 3) ? &bw : !strncmp(t, "flops=", 6) ? &fl : NULL;
        const char *num = into == &bw ? t + 3 : t + 6;
        ok = into && (*into = strtod(num, &end), end != num && !*end && *into > 0);
    }
    free(copy);
    if (!ok || bw <= 0 || fl <= 0)
        return false;
    s->bandwidth = bw, s->peak_flops = fl;
    return true;
}

/* a/k.okl and b/k.okl: the same NAME of --out-dir's outputs */
static bool same_stem(const char *a, const char *b)
{
    a = strrchr(a, '/') ? strrchr(a, '/') + 1 : a;
    b = strrchr(b, '/') ? strrchr(b, '/') + 1 : b;
    size_t na = strrchr(a, '.') ? (size_t)(strrchr(a, '.') - a) : strlen(a);
    size_t nb = strrchr(b, '.') ? (size_t)(strrchr(b, '.') - b) : strlen(b);
    return na == nb && !strncmp(a, b, na);
}

static int parse(int argc, char **argv, Options *o, oklc_ctx *c)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (o->command)
                exit(command_help(o->command));
            usage();
            exit(0);
        } else if (!strcmp(a, "--version")) {
            version();
            exit(0);
        } else if (!strcmp(a, "--keep-macros")) {
            o->keep_macros = true;
        } else if (!strcmp(a, "-Werror")) {
            oklc_set_werror(c, true);
        } else if (!strcmp(a, "-Wall")) {
            oklc_set_wall(c, true);
        } else if (!strcmp(a, "--dump-model")) {
            o->dump_model = true;
        } else if (!strcmp(a, "--count-ops")) {
            o->count_ops = true;
            oklc_set_count_ops(c, true);
        } else if (cli_is_option(a, "--param")) {
            char *end;
            const char *eq;
            if (!(v = cli_option_value(argc, argv, &i, "--param")) || !(eq = strchr(v, '=')) ||
                eq == v)
                return usage_error("option '%s' needs NAME=VALUE", "--param");
            errno = 0;
            long long x = strtoll(eq + 1, &end, 0);
            if (!eq[1] || *end || errno)
                return usage_error("--param %s: the value is not an integer", v);
            o->params[o->stats.nparams++] = (oklc_stats_param){strndup(v, (size_t)(eq - v)), x};
            o->stats_given = true;
        } else if (cli_is_option(a, "--format")) {
            if (!(v = cli_option_value(argc, argv, &i, "--format")) ||
                (strcmp(v, "text") && strcmp(v, "json")))
                return usage_error("--format needs text or json%s", "");
            o->stats.json = !strcmp(v, "json");
            o->stats_given = true;
        } else if (cli_is_option(a, "--machine")) {
            if (!(v = cli_option_value(argc, argv, &i, "--machine")) ||
                !machine(v, &o->stats))
                return usage_error("--machine needs bw=BYTES_PER_S,flops=FLOP_PER_S (%s)",
                                   v ? v : "nothing given");
            o->stats_given = true;
        } else if (cli_is_option(a, "--clang-arg")) {
            if (!(v = cli_option_value(argc, argv, &i, "--clang-arg")) || !*v)
                return usage_error("option '%s' needs an argument for Clang", "--clang-arg");
            oklc_add_clang_arg(c, v);
        } else if (!strcmp(a, "-") || a[0] != '-') {
            if (!o->command)
                o->command = a;
            else
                o->inputs[o->ninputs++] = a;
            o->input = o->ninputs ? o->inputs[0] : NULL;
        } else if (cli_is_option(a, "--out-dir")) {
            if (!(v = cli_option_value(argc, argv, &i, "--out-dir")) || !*v)
                return usage_error("option '%s' needs a folder", "--out-dir");
            o->out_dir = v;
        } else if (cli_is_option(a, "-o")) {
            if (!(v = cli_option_value(argc, argv, &i, "-o")))
                return usage_error("option '%s' needs a file name", "-o");
            o->output = v;
        } else if (cli_is_option(a, "-D")) {
            if (!(v = cli_option_value(argc, argv, &i, "-D")) || !*v)
                return usage_error("option '%s' needs a macro definition", "-D");
            oklc_define(c, v);
        } else if (cli_is_option(a, "-U")) {
            if (!(v = cli_option_value(argc, argv, &i, "-U")) || !*v)
                return usage_error("option '%s' needs a macro name", "-U");
            oklc_undef(c, v);
        } else if (cli_is_option(a, "-I")) {
            if (!(v = cli_option_value(argc, argv, &i, "-I")) || !*v)
                return usage_error("option '%s' needs a folder", "-I");
            oklc_include_path(c, v);
        } else if (cli_is_option(a, "--include")) {
            if (!(v = cli_option_value(argc, argv, &i, "--include")) || !*v)
                return usage_error("option '%s' needs a file name", "--include");
            oklc_include_file(c, v);
        } else if (cli_is_option(a, "-b") || cli_is_option(a, "--backend")) {
            const char *name = a[1] == 'b' ? "-b" : "--backend";
            oklc_backend b;
            if (!(v = cli_option_value(argc, argv, &i, name)))
                return usage_error("option '%s' needs a backend name", name);
            o->backend_given = true;
            if (!oklc_backend_from_name(v, &b) || b == OKLC_BACKEND_NONE) {
                o->backend_plugin = v;    /* maybe a plugin's: known once they are loaded */
                o->backend = v;
                continue;
            }
            o->backend_plugin = NULL;
            oklc_set_backend(c, b);
            o->backend = oklc_backend_name(b);
            o->backend_id = b;
        } else if (cli_is_option(a, "--intrinsics")) {
            if (!(v = cli_option_value(argc, argv, &i, "--intrinsics")) || !*v)
                return usage_error("option '%s' needs a file name", "--intrinsics");
            o->intrinsics[o->nintrinsics++] = v;
        } else if (cli_is_option(a, "--plugin")) {
            if (!(v = cli_option_value(argc, argv, &i, "--plugin")) || !*v)
                return usage_error("option '%s' needs a file name", "--plugin");
            o->plugins[o->nplugins++] = v;
        } else if (cli_is_option(a, "--metadata")) {
            if (!(v = cli_option_value(argc, argv, &i, "--metadata")) || !*v)
                return usage_error("option '%s' needs a file name", "--metadata");
            o->metadata = v;
        } else if (cli_is_option(a, "--launcher")) {
            if (!(v = cli_option_value(argc, argv, &i, "--launcher")) || !*v)
                return usage_error("option '%s' needs a file name", "--launcher");
            o->launcher = v;
        } else if (cli_is_option(a, "--launcher-metadata")) {
            if (!(v = cli_option_value(argc, argv, &i, "--launcher-metadata")) || !*v)
                return usage_error("option '%s' needs a file name", "--launcher-metadata");
            o->launcher_metadata = v;
        } else if (cli_is_option(a, "--convention")) {
            if (!(v = cli_option_value(argc, argv, &i, "--convention")))
                return usage_error("option '%s' needs oklc or occa", "--convention");
            if (strcmp(v, "oklc") && strcmp(v, "occa"))
                return usage_error("unknown convention '%s' (oklc, occa)", v);
            o->occa = !strcmp(v, "occa");
            oklc_set_convention(c, o->occa ? OKLC_CONVENTION_OCCA : OKLC_CONVENTION_OKLC);
        } else if (cli_is_option(a, "--cpu-rewrites")) {
            if (!(v = cli_option_value(argc, argv, &i, "--cpu-rewrites")))
                return usage_error("option '%s' needs on or off", "--cpu-rewrites");
            if (strcmp(v, "on") && strcmp(v, "off"))
                return usage_error("unknown value '%s' for --cpu-rewrites (on, off)", v);
            o->rewrites_given = true;
            oklc_set_cpu_rewrites(c, !strcmp(v, "on"));
        } else if (cli_is_option(a, "--depfile")) {
            if (!(v = cli_option_value(argc, argv, &i, "--depfile")) || !*v)
                return usage_error("option '%s' needs a file name", "--depfile");
            o->depfile = v;
        } else if (cli_is_option(a, "--instance")) {
            if (!(v = cli_option_value(argc, argv, &i, "--instance")) || !*v)
                return usage_error("option '%s' needs a kernel: name<T, N>", "--instance");
            oklc_add_instance(c, v);
        } else if (cli_is_option(a, "--diagnostics")) {
            if (!(v = cli_option_value(argc, argv, &i, "--diagnostics")))
                return usage_error("option '%s' needs a format", "--diagnostics");
            if (strcmp(v, "json") && strcmp(v, "text"))
                return usage_error("unknown diagnostics format '%s' (text, json)", v);
            o->json = !strcmp(v, "json");
        } else if (cli_is_option(a, "--color")) {
            if (!(v = cli_option_value(argc, argv, &i, "--color")))
                return usage_error("option '%s' needs auto, always or never", "--color");
            if (!strcmp(v, "always"))
                o->color = 1;
            else if (!strcmp(v, "never"))
                o->color = 0;
            else if (!strcmp(v, "auto"))
                o->color = -1;
            else
                return usage_error("unknown colour mode '%s' (auto, always, never)", v);
        } else {
            return usage_error("unknown option '%s'", a);
        }
    }
    if (!o->command)
        return usage_error("%s", "no command given (normalize, preprocess, check, transpile, "
                                 "stats, compile-commands, info, cache, help)");
    if (strcmp(o->command, "normalize") && strcmp(o->command, "preprocess") &&
        strcmp(o->command, "check") && strcmp(o->command, "transpile") &&
        strcmp(o->command, "stats"))
        return usage_error("unknown command '%s' (normalize, preprocess, check, transpile, "
                           "stats, compile-commands, info, cache, help)",
                           o->command);
    if (o->stats_given && strcmp(o->command, "stats"))
        return usage_error("%s", "--param, --format and --machine only apply to stats");
    if (!o->input)
        return usage_error("%s", "no input file");
    if (o->ninputs > 1 && !o->out_dir)
        return usage_error("more than one input file ('%s'): several need --out-dir DIR "
                           "(transpile)", o->inputs[1]);
    if (o->out_dir && strcmp(o->command, "transpile"))
        return usage_error("%s", "--out-dir only applies to transpile");
    if (o->out_dir && (o->output || o->metadata || o->launcher || o->launcher_metadata))
        return usage_error("%s", "--out-dir names each input's outputs itself: not with -o, "
                                 "--metadata, --launcher or --launcher-metadata");
    for (int k = 0; o->out_dir && k < o->ninputs; k++) {
        if (!strcmp(o->inputs[k], "-"))
            return usage_error("%s", "--out-dir reads files, not standard input ('-')");
        for (int l = 0; l < k; l++)
            if (same_stem(o->inputs[k], o->inputs[l]))
                return usage_error("--out-dir: two inputs named '%s' (their outputs would "
                                   "be the same files)", o->inputs[k]);
    }
    struct stat in, out;
    if (o->output && strcmp(o->input, "-") && stat(o->input, &in) == 0 &&
        stat(o->output, &out) == 0 && S_ISREG(out.st_mode) && in.st_dev == out.st_dev &&
        in.st_ino == out.st_ino)
        return usage_error("the output '%s' is the input file: write it elsewhere, "
                               "then move it", o->output);
    if (o->keep_macros && strcmp(o->command, "normalize"))
        return usage_error("%s", "--keep-macros only applies to normalize");
    if (o->dump_model && strcmp(o->command, "check"))
        return usage_error("%s", "--dump-model only applies to check");
    if (o->nintrinsics && strcmp(o->command, "check") && strcmp(o->command, "transpile"))
        return usage_error("%s", "--intrinsics only applies to check and transpile");
    if (o->metadata && strcmp(o->command, "transpile"))
        return usage_error("%s", "--metadata only applies to transpile");
    if (o->launcher && strcmp(o->command, "transpile"))
        return usage_error("%s", "--launcher only applies to transpile");
    if (o->launcher_metadata && !o->occa)
        return usage_error("%s", "--launcher-metadata needs --convention=occa: oklc's own "
                                 "launchers have none");
    if (o->count_ops && (strcmp(o->command, "transpile") || o->backend_id != OKLC_BACKEND_SERIAL))
        return usage_error("%s", "--count-ops applies to transpile -b serial (its counters "
                                 "are not atomic: one thread)");
    if (o->rewrites_given && strcmp(o->command, "transpile"))
        return usage_error("%s", "--cpu-rewrites only applies to transpile");
    if (o->occa && strcmp(o->command, "transpile"))
        return usage_error("%s", "--convention only applies to transpile");
    if (o->depfile && !o->output && !o->out_dir)
        return usage_error("%s", "--depfile needs -o FILE (or --out-dir): the rule it writes is "
                                 "for that file");
    if (!strcmp(o->command, "transpile") && !o->backend_given)
        return usage_error("%s", "transpile needs a backend: -b serial, openmp, cuda, hip or "
                                 "opencl");
    if ((o->launcher || o->launcher_metadata) && o->backend_given &&
        (o->backend_id == OKLC_BACKEND_SERIAL || o->backend_id == OKLC_BACKEND_OPENMP))
        return usage_error("--launcher applies to the GPU backends (cuda, hip, opencl): the %s "
                           "backend's kernels run on the host", o->backend);
    return 0;
}

static char *read_stdin(size_t *len)
{
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, stdin)) > 0) {
        n += got;
        if (n == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                return NULL;
            }
            buf = nb;
        }
    }
    *len = n;
    return buf;
}

static bool use_color(int mode)
{
    if (mode >= 0)
        return mode;
    const char *term = getenv("TERM");
    return isatty(2) && !getenv("NO_COLOR") && term && strcmp(term, "dumb");
}

/* The precompiled prelude's folder: "pch" in the kernel cache, which is
 * $OKLC_CACHE_DIR, else $XDG_CACHE_HOME/oklc, else ~/.cache/oklc (as for
 * the runtime, docs/architecture.md); its parents made 0700 if missing.
 * None with OKLC_PCH=0, or without a home. */
static void use_pch_dir(oklc_ctx *c)
{
    const char *env = getenv("OKLC_PCH"), *root = getenv("OKLC_CACHE_DIR");
    char dir[4096];
    if (env && !strcmp(env, "0"))
        return;
    if (root && *root)
        snprintf(dir, sizeof dir, "%s/pch", root);
    else if ((root = getenv("OCCA_CACHE_DIR")) && *root)    /* as the runtime's cache */
        snprintf(dir, sizeof dir, "%s/oklc/pch", root);
    else if ((root = getenv("XDG_CACHE_HOME")) && root[0] == '/')
        snprintf(dir, sizeof dir, "%s/oklc/pch", root);
    else if ((root = getenv("HOME")) && *root)
        snprintf(dir, sizeof dir, "%s/.cache/oklc/pch", root);
    else
        return;
    for (char *p = dir + 1; (p = strchr(p, '/')); p++) {
        *p = 0;
        mkdir(dir, 0700);        /* EEXIST and the rest: the library decides */
        *p = '/';
    }
    oklc_set_pch_dir(c, dir);
}

/* The plugins of $OKLC_PLUGINS (FILE:FILE...), then those of --plugin; then
 * the backend, which may be one of theirs. 0, or the exit status. */
static int load_plugins(oklc_ctx *c, Options *o)
{
    bool ok = true;
    const char *env = getenv("OKLC_PLUGINS");
    char *list = env && *env ? strdup(env) : NULL;
    for (char *p = list, *next; ok && p; p = next) {
        next = strchr(p, ':');
        if (next)
            *next++ = 0;
        if (*p)
            ok = oklc_load_plugin(c, p);
    }
    free(list);
    for (int i = 0; ok && i < o->nplugins; i++)
        ok = oklc_load_plugin(c, o->plugins[i]);
    if (!ok) {
        oklc_diag_print(c, stderr, o->json ? OKLC_DIAG_JSON
                                           : use_color(o->color) ? OKLC_DIAG_TEXT_COLOR
                                                                 : OKLC_DIAG_TEXT);
        return 1;
    }
    if (o->backend_plugin && !oklc_set_backend_name(c, o->backend_plugin))
        return usage_error("unknown backend '%s' (serial, openmp, cuda, hip, opencl, dpcpp, "
                           "metal, or one a plugin adds)",
                           o->backend_plugin);
    return 0;
}

/* The intrinsics files of --intrinsics, in order. 0, or the exit status. */
static int load_intrinsics(oklc_ctx *c, Options *o)
{
    bool ok = true;
    for (int i = 0; i < o->nintrinsics; i++)
        ok &= oklc_load_intrinsics(c, o->intrinsics[i]);
    if (ok)
        return 0;
    oklc_diag_print(c, stderr, o->json ? OKLC_DIAG_JSON
                                       : use_color(o->color) ? OKLC_DIAG_TEXT_COLOR
                                                             : OKLC_DIAG_TEXT);
    return 1;
}

/* A file name as Make reads it: blanks, '#' and '$' escaped. */
static void make_escaped(FILE *f, const char *name)
{
    for (const char *p = name; *p; p++) {
        if (*p == ' ' || *p == '\t' || *p == '#')
            fputc('\\', f);
        else if (*p == '$')
            fputc('$', f);
        fputc(*p, f);
    }
}

/* Adds one prerequisite: a regular file, by its absolute name, once. */
static void add_dependency(FILE *f, char ***seen, size_t *n, const char *name)
{
    struct stat st;
    char *abs = realpath(name, NULL);
    if (!abs || stat(abs, &st) != 0 || !S_ISREG(st.st_mode)) {
        free(abs);
        return;
    }
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*seen)[i], abs)) {
            free(abs);
            return;
        }
    char **grown = realloc(*seen, (*n + 1) * sizeof **seen);
    if (!grown) {
        free(abs);
        return;
    }
    *seen = grown;
    (*seen)[(*n)++] = abs;
    fputs(" \\\n  ", f);
    make_escaped(f, abs);
}

/* --depfile: "OUTPUT: the kernel, its includes, --include, --intrinsics and
 * --plugin files ($OKLC_PLUGINS too)", written like the other outputs. */
static bool write_depfile(oklc_ctx *c, const Options *o)
{
    char *text = NULL, **seen = NULL;
    size_t len = 0, n = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return false;
    char *out = realpath(o->output, NULL);
    make_escaped(f, out ? out : o->output);
    free(out);
    fputc(':', f);
    const char *name;
    for (size_t i = 0; (name = oklc_input_file(c, i)); i++)
        add_dependency(f, &seen, &n, name);
    for (int i = 0; i < o->nplugins; i++)
        add_dependency(f, &seen, &n, o->plugins[i]);
    const char *env = getenv("OKLC_PLUGINS");
    char *list = env && *env ? strdup(env) : NULL;
    for (char *p = list, *next; p; p = next) {
        if ((next = strchr(p, ':')))
            *next++ = 0;
        add_dependency(f, &seen, &n, p);
    }
    free(list);
    fputc('\n', f);
    bool ok = fclose(f) == 0 && cli_write_output(o->depfile, text, len);
    while (n)
        free(seen[--n]);
    free(seen);
    free(text);
    return ok;
}

/* The launcher, or its metadata, to `file`: only GPU-like backends have one. */
static bool write_launcher_part(oklc_ctx *c, const Options *o,
                                const char *(*part)(oklc_ctx *, size_t *), const char *file)
{
    size_t len;
    const char *text = part(c, &len);
    if (!text)
        fprintf(stderr, "oklc: error: the %s backend has no launcher: its kernels run on the "
                        "host\n", o->backend);
    return text && cli_write_output(file, text, len);
}

/* ---- outputs never replace inputs ---------------------------------------------------------- */

/* Is `a` the file `b` names (the same device and inode)? */
static bool same_file(const char *a, const struct stat *b)
{
    struct stat st;
    return stat(a, &st) == 0 && st.st_dev == b->st_dev && st.st_ino == b->st_ino;
}

/* Do two output names write one file: the same file now, or (not there
 * yet) the same name in the same folder? */
static bool same_output(const char *a, const char *b)
{
    struct stat st;
    if (stat(a, &st) == 0)
        return same_file(b, &st);
    char *da = strdup(a), *db = strdup(b);
    bool same = false;
    if (da && db && !strcmp(basename(da), basename(db))) {
        char *ra = realpath(dirname(da), NULL), *rb = realpath(dirname(db), NULL);
        same = ra && rb && !strcmp(ra, rb);
        free(ra);
        free(rb);
    }
    free(da);
    free(db);
    return same;
}

/* Each output file against every file the run read (the kernel, its
 * includes, --include, --intrinsics and --plugin files) and against the
 * other outputs, by identity, not by name: a link or another spelling of
 * a path is the same file. Before anything is written. */
static bool outputs_clash(oklc_ctx *c, const Options *o)
{
    enum { OUTPUTS = 5 };
    const char *outs[OUTPUTS] = {o->output, o->metadata, o->launcher, o->launcher_metadata,
                                 o->depfile};
    static const char *const opts[OUTPUTS] = {"-o", "--metadata", "--launcher", "--launcher-metadata",
                                       "--depfile"};
    for (size_t i = 0; i < OUTPUTS; i++) {
        struct stat st;
        if (!outs[i])
            continue;
        for (size_t k = i + 1; k < OUTPUTS; k++)
            if (outs[k] && same_output(outs[i], outs[k])) {
                fprintf(stderr, "oklc: error: %s and %s both write '%s': give each a file of "
                                "its own\n", opts[i], opts[k], outs[k]);
                return true;
            }
        if (stat(outs[i], &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        const char *name, *input = NULL;
        for (size_t k = 0; !input && (name = oklc_input_file(c, k)); k++)
            if (same_file(name, &st))
                input = name;
        for (int k = 0; !input && k < o->nplugins; k++)
            if (same_file(o->plugins[k], &st))
                input = o->plugins[k];
        if (input) {
            fprintf(stderr, "oklc: error: %s '%s' is '%s', a file this run reads: write it "
                            "elsewhere\n", opts[i], outs[i], input);
            return true;
        }
    }
    return false;
}

static void free_options(Options *o)
{
    for (size_t i = 0; o->params && i < o->stats.nparams; i++)
        free((char *)o->params[i].name);
    free(o->params);
    free(o->plugins);
    free(o->intrinsics);
    free(o->inputs);
    for (int i = 0; i < 4; i++)
        free(o->out_paths[i]);
}

/* The stage on o->input (run_file), its outputs written all or nothing. */
static bool run_file(oklc_ctx *c, Options *o)
{
    bool ok;
    unsigned flags = (o->keep_macros ? OKLC_KEEP_MACROS : 0) | (o->dump_model ? OKLC_DUMP_MODEL : 0);
    const char *path = o->input;
    char *text = NULL;
    size_t len = 0;
    if (!strcmp(o->input, "-")) {
        text = read_stdin(&len);
        path = "<stdin>";
        if (!text) {
            fprintf(stderr, "oklc: error: cannot read standard input\n");
            return false;
        }
    }
    if (!strcmp(o->command, "normalize"))
        ok = text ? oklc_normalize_buffer(c, path, text, len, flags) : oklc_normalize(c, path, flags);
    else if (!strcmp(o->command, "check"))
        ok = text ? oklc_check_buffer(c, path, text, len, flags) : oklc_check(c, path, flags);
    else if (!strcmp(o->command, "transpile"))
        ok = text ? oklc_transpile_buffer(c, path, text, len, flags)
                  : oklc_transpile(c, path, flags);
    else if (!strcmp(o->command, "stats"))
        ok = (o->stats.params = o->params, text)
                 ? oklc_stats_buffer(c, path, text, len, &o->stats) : oklc_stats(c, path, &o->stats);
    else
        ok = text ? oklc_preprocess_buffer(c, path, text, len) : oklc_preprocess(c, path);
    free(text);
    oklc_diag_print(c, stderr,
                    o->json ? OKLC_DIAG_JSON
                            : use_color(o->color) ? OKLC_DIAG_TEXT_COLOR : OKLC_DIAG_TEXT);
    if (ok && outputs_clash(c, o)) {
        o->clash = true;
        return false;
    }
    if (!ok)
        return false;
    size_t out_len;
    const char *out = oklc_output(c, &out_len);
    ok = cli_write_output(o->output, out, out_len);
    if (ok && o->metadata) {
        size_t mlen;
        const char *meta = oklc_metadata(c, &mlen);
        ok = cli_write_output(o->metadata, meta, mlen);
    }
    if (ok && o->launcher)
        ok = write_launcher_part(c, o, oklc_launcher, o->launcher);
    if (ok && o->launcher_metadata)
        ok = write_launcher_part(c, o, oklc_launcher_metadata, o->launcher_metadata);
    if (ok && o->depfile)
        ok = write_depfile(c, o);
    if (!ok && o->output)
        unlink(o->output);          /* all or nothing */
    if (!ok && o->metadata)
        unlink(o->metadata);
    if (!ok && o->launcher)
        unlink(o->launcher);
    if (!ok && o->launcher_metadata)
        unlink(o->launcher_metadata);
    return ok;
}

/* --out-dir: the outputs of input i, DIR/NAME.BACKEND.EXT and beside it its
 * metadata (.json), a GPU backend's launcher (.launcher.cpp) and a depfile
 * (.EXT.d); the names oklc_add_kernels gives them. */
static bool batch_outputs(Options *o, int i)
{
    static const char *const ext[OKLC_BACKEND_COUNT_] = {
        [OKLC_BACKEND_SERIAL] = "cpp", [OKLC_BACKEND_OPENMP] = "cpp",
        [OKLC_BACKEND_CUDA] = "cu",    [OKLC_BACKEND_HIP] = "hip.cpp",
        [OKLC_BACKEND_OPENCL] = "cl",  [OKLC_BACKEND_DPCPP] = "cpp",
        [OKLC_BACKEND_METAL] = "metal"};
    const char *base = strrchr(o->inputs[i], '/');
    base = base ? base + 1 : o->inputs[i];
    int stem = (int)(strrchr(base, '.') ? strrchr(base, '.') - base : (long)strlen(base));
    const char *e = o->backend_plugin ? "txt" : ext[o->backend_id];
    o->input = o->inputs[i];
    bool gpu = !o->backend_plugin && o->backend_id != OKLC_BACKEND_SERIAL &&
               o->backend_id != OKLC_BACKEND_OPENMP;
    o->output = o->out_paths[0] ? o->out_paths[0] : (o->out_paths[0] = malloc(4200));
    o->metadata = o->out_paths[1] ? o->out_paths[1] : (o->out_paths[1] = malloc(4200));
    o->depfile = o->out_paths[2] ? o->out_paths[2] : (o->out_paths[2] = malloc(4200));
    o->launcher = o->out_paths[3] ? o->out_paths[3] : (o->out_paths[3] = malloc(4200));
    if (!o->out_paths[0] || !o->out_paths[1] || !o->out_paths[2] || !o->out_paths[3])
        return false;
    snprintf(o->out_paths[0], 4200, "%s/%.*s.%s.%s", o->out_dir, stem, base, o->backend, e);
    snprintf(o->out_paths[1], 4200, "%s/%.*s.%s.json", o->out_dir, stem, base, o->backend);
    snprintf(o->out_paths[2], 4200, "%s.d", o->out_paths[0]);
    snprintf(o->out_paths[3], 4200, "%s/%.*s.%s.launcher.cpp", o->out_dir, stem, base,
             o->backend);
    if (!gpu)
        o->launcher = NULL;
    return true;
}

static int batch(int argc, char **argv, const Options *o);

/* One process: the options read for a context of its own (a context runs
 * one input), then the stage; `which` >= 0: input `which` of --out-dir.
 * The exit status. */
static int run(int argc, char **argv, int which, FILE *deps)
{
    oklc_ctx *c = oklc_ctx_new();
    if (!c) {
        fprintf(stderr, "oklc: error: out of memory\n");
        return 1;
    }
    use_pch_dir(c);
    Options o = {.color = -1};
    o.plugins = calloc((size_t)argc, sizeof *o.plugins);
    o.intrinsics = calloc((size_t)argc, sizeof *o.intrinsics);
    o.params = calloc((size_t)argc, sizeof *o.params);
    o.inputs = calloc((size_t)argc, sizeof *o.inputs);
    int status = o.plugins && o.intrinsics && o.params && o.inputs ? parse(argc, argv, &o, c) : 1;
    if (!status && o.out_dir && which < 0) {    /* each input in a context of its own */
        oklc_ctx_free(c);
        status = batch(argc, argv, &o);
        free_options(&o);
        return status;
    }
    if (!status && which >= 0 && !batch_outputs(&o, which))
        status = 1;
    if (!status)
        status = load_plugins(c, &o);
    if (!status)
        status = load_intrinsics(c, &o);
    if (!status)
        status = run_file(c, &o) ? 0 : o.clash ? 2 : 1;
    if (!status && deps)
        for (size_t i = 0; oklc_input_file(c, i); i++)
            fprintf(deps, "%s\n", oklc_input_file(c, i));
    free_options(&o);
    oklc_ctx_free(c);
    return status;
}

/* --out-dir's --depfile: its first output depending on `names` (a line
 * each, what the inputs read) and the plugins. */
static bool write_batch_depfile(const Options *o, char *names)
{
    Options first = *o;
    memset(first.out_paths, 0, sizeof first.out_paths);
    bool ok = batch_outputs(&first, 0);
    char *text = NULL, **seen = NULL;
    size_t len = 0, n = 0;
    FILE *f = ok ? open_memstream(&text, &len) : NULL;
    if (f) {
        char *out = realpath(first.output, NULL);
        make_escaped(f, out ? out : first.output);
        free(out);
        fputc(':', f);
        for (char *p = names, *nl; p && *p; p = nl + 1) {
            nl = strchr(p, '\n');
            *nl = '\0';
            add_dependency(f, &seen, &n, p);
        }
        for (int i = 0; i < o->nplugins; i++)
            add_dependency(f, &seen, &n, o->plugins[i]);
        fputc('\n', f);
        ok = fclose(f) == 0 && cli_write_output(o->depfile, text, len);
    }
    while (n)
        free(seen[--n]);
    free(seen);
    free(text);
    for (int i = 0; i < 4; i++)
        free(first.out_paths[i]);
    return ok && f;
}

/* --out-dir DIR FILE...: each file transpiled in this process (libclang
 * loaded once); --depfile: one rule, the first output depending on every
 * file any of them read. The worst exit status. */
static int batch(int argc, char **argv, const Options *o)
{
    char *names = NULL;
    size_t len = 0;
    FILE *deps = o->depfile ? open_memstream(&names, &len) : NULL;
    if (cli_mkdirs(o->out_dir)) {
        fprintf(stderr, "oklc: error: cannot create the folder '%s': %s\n", o->out_dir,
                strerror(errno));
        return 1;
    }
    int worst = 0;
    for (int i = 0; i < o->ninputs; i++) {
        int st = run(argc, argv, i, deps);
        worst = st > worst ? st : worst;
    }
    if (deps && fclose(deps) == 0 && !worst)
        worst = write_batch_depfile(o, names) ? 0 : 1;
    free(names);
    return worst;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "compile-commands"))    /* options of its own */
        return oklc_cmd_compile_commands(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "info"))
        return oklc_cmd_info(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "cache"))
        return oklc_cmd_cache(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "help")) {
        if (argc > 3)
            return usage_error("help takes one command ('%s' is more)", argv[3]);
        if (argc == 3)
            return command_help(argv[2]);
        usage();
        return 0;
    }
    return run(argc, argv, -1, NULL);
}
