/*
 * device.c - devices: the spec parser, the table of device kinds, and the
 * calls that go through a kind's operations.
 *
 * A spec is blank-separated words: a bare word is the mode, `key=value`
 * sets mode, threads, platform or device ("mode=openmp threads=4"). Each
 * kind is one DeviceOps in its own file (cpu.c: serial, openmp; opencl.c,
 * cuda.c, hip.c, dpcpp.c, metal.c), which reads what applies to it from the
 * Spec. The modes: serial, openmp, cuda, hip, opencl, dpcpp (SYCL), metal
 * (macOS only, and not written yet: always OKLC_ERR_UNAVAILABLE).
 * OCCA's device strings ("{mode: 'CUDA', device_id: 0}") are read as the
 * same words.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rt.h"

static const DeviceOps *const kinds[] = {
    &oklc_serial_ops, &oklc_openmp_ops, &oklc_cuda_ops, &oklc_hip_ops, &oklc_opencl_ops,
    &oklc_dpcpp_ops,  &oklc_metal_ops,
};

#define MODES "serial, openmp, cuda, hip, opencl, dpcpp, metal"

enum { MAX_THREADS = 1 << 16 };

static oklc_status bad_spec(const Spec *s, const char *fmt, const char *what)
{
    char *why = oklc_rt_format(fmt, what);
    if (!why)
        return oklc_rt_oom();
    oklc_status st = oklc_rt_fail(OKLC_ERR_ARGUMENT, "device spec '%s': %s", s->text, why);
    oklc_free(why);
    return st;
}

static oklc_status parse_threads(Spec *s, const char *v)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || end == v || *end || n < 1 || n > MAX_THREADS)
        return bad_spec(s, "threads=%s is not a number of threads (1 to 65536)", v);
    s->threads = (int)n;
    return OKLC_OK;
}

/* word = mode | key "=" value */
static oklc_status parse_word(Spec *s, char *word, const char **mode)
{
    char *eq = strchr(word, '=');
    const char *key = eq ? word : "mode", *value = eq ? eq + 1 : word;
    if (eq)
        *eq = '\0';
    if (!*value)
        return bad_spec(s, "'%s' has no value", key);
    if (!strcmp(key, "mode")) {
        if (*mode)
            return bad_spec(s, "%s", "the mode is given twice");
        *mode = value;
        return OKLC_OK;
    }
    if (!strcmp(key, "threads"))
        return parse_threads(s, value);
    if (!strcmp(key, "platform"))
        s->platform = value;
    else if (!strcmp(key, "device"))
        s->device = value;
    else
        return bad_spec(s, "unknown key '%s' (keys: mode, threads, platform, device)", key);
    return OKLC_OK;
}

static oklc_status parse(Spec *s, char *copy, const char **mode)
{
    char *save;
    for (char *w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
        oklc_status st = parse_word(s, w, mode);
        if (st)
            return st;
    }
    if (!*mode)
        return bad_spec(s, "%s", "no mode (" MODES ")");
    return OKLC_OK;
}

/* ---- OCCA's device strings -------------------------------------------------------- */

/* OCCA's keys and ours. */
static const char *const occa_keys[][2] = {
    {"mode", "mode"}, {"device_id", "device"}, {"platform_id", "platform"},
    {"threads", "threads"},
};

/* One `key: value` of OCCA's form as our word `key=value` added to *out. */
static oklc_status occa_pair(Spec *s, char *pair, char **out)
{
    char *colon = strchr(pair, ':');
    if (!colon)
        return bad_spec(s, "'%s' is not OCCA's key: value", pair);
    *colon = '\0';
    char *key = pair, *value = colon + 1;
    key += strspn(key, " \t\n");
    key[strcspn(key, " \t\n")] = '\0';
    value += strspn(value, " \t\n");
    size_t n = strlen(value);
    while (n && strchr(" \t\n", value[n - 1]))
        value[--n] = '\0';
    if (n >= 2 && (value[0] == '\'' || value[0] == '"') && value[n - 1] == value[0])
        value[n - 1] = '\0', value++;
    if (strchr(value, '{') || strchr(value, '['))
        return bad_spec(s, "OCCA's nested property '%s' is not a device's: kernel "
                        "properties are oklc_props", key);
    for (size_t i = 0; i < OKLC_COUNTOF(occa_keys); i++) {
        if (strcmp(key, occa_keys[i][0]))
            continue;
        char *more = oklc_rt_format("%s %s=%s", *out, occa_keys[i][1], value);
        oklc_free(*out);
        *out = more;
        return more ? OKLC_OK : oklc_rt_oom();
    }
    return bad_spec(s, "unknown key '%s' in OCCA's form (keys: mode, device_id, platform_id, "
                    "threads)", key);
}

/* "{mode: 'CUDA', device_id: 1}" (braces optional, quotes ' or ") as
 * "mode=CUDA device=1". Values with blanks or commas do not occur. */
static oklc_status occa_spec(Spec *s, const char *spec, char **out)
{
    char *copy = oklc_rt_strdup(spec), *save;
    *out = oklc_rt_strdup("");
    oklc_status st = copy && *out ? OKLC_OK : oklc_rt_oom();
    char *body = copy ? copy + strspn(copy, " \t\n") : NULL;
    size_t n = body ? strlen(body) : 0;
    while (n && strchr(" \t\n", body[n - 1]))
        body[--n] = '\0';
    if (!st && body[0] == '{') {
        if (!n || body[n - 1] != '}')
            st = bad_spec(s, "%s", "OCCA's form opens '{' without closing it");
        body[n - 1] = '\0', body++;
    }
    for (char *p = st ? NULL : strtok_r(body, ",", &save); p && !st; p = strtok_r(NULL, ",", &save))
        if (p[strspn(p, " \t\n")])
            st = occa_pair(s, p, out);
    oklc_free(copy);
    if (st) {
        oklc_free(*out);
        *out = NULL;
    }
    return st;
}

static oklc_status open_kind(const Spec *s, const char *mode, oklc_device **out)
{
    for (size_t i = 0; i < OKLC_COUNTOF(kinds); i++) {
        if (strcasecmp(mode, kinds[i]->name))
            continue;
        oklc_device *d = oklc_malloc(sizeof *d);
        if (!d)
            return oklc_rt_oom();
        memset(d, 0, sizeof *d);
        d->ops = kinds[i];
        oklc_status st = d->ops->open(d, s);
        if (st) {    /* open cleans up after itself but for these */
            oklc_free(d->id);
            oklc_free(d->label);
            oklc_free(d);
            return st;
        }
        *out = d;
        return OKLC_OK;
    }
    return bad_spec(s, "unknown mode '%s' (modes: " MODES ")", mode);
}

oklc_status oklc_device_open(const char *spec, oklc_device **out)
{
    oklc_rt_dl_enter();
    if (!spec || !out)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_device_open: NULL %s",
                            spec ? "out" : "spec");
    *out = NULL;
    Spec s = {.text = spec};
    char *copy = NULL;
    oklc_status st = strchr(spec, ':') || strchr(spec, '{') ? occa_spec(&s, spec, &copy)
                     : (copy = oklc_rt_strdup(spec)) ? OKLC_OK : oklc_rt_oom();
    if (st)
        return st;
    const char *mode = NULL;
    st = parse(&s, copy, &mode);
    if (!st)
        st = open_kind(&s, mode, out);
    oklc_free(copy);
    return st;
}

void oklc_device_close(oklc_device *d)
{
    oklc_rt_dl_enter();
    if (!d)
        return;
    while (d->streams)    /* those not freed: their threads and queues end */
        oklc_stream_free(d->streams);
    d->ops->close(d);
    oklc_free(d->id);
    oklc_free(d->label);
    oklc_free(d);
}

oklc_status oklc_device_query(oklc_device *d, oklc_device_info *info)
{
    oklc_rt_dl_enter();
    if (!d || !info)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_device_query: NULL %s",
                            d ? "info" : "device");
    memset(info, 0, sizeof *info);
    info->mode = d->ops->name;
    snprintf(info->name, sizeof info->name, "%s", d->label ? d->label : d->ops->title);
    return d->ops->query ? d->ops->query(d, info) : OKLC_OK;
}

const char *oklc_device_mode(const oklc_device *d)
{
    return d ? d->ops->name : "";
}

