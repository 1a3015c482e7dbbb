/*
 * stream.c - streams and events: the calls of runtime.h over each kind's
 * hooks (cpu_stream.c, gpu.c's CUDA and HIP, opencl.c). A kind without
 * hooks (DPC++) has one queue: each of its streams is that queue, and an
 * event finishes it and reads the host's clock. The device keeps the
 * streams it made in a list, for oklc_device_finish and its close.
 */
#include <stdlib.h>
#include <string.h>

#include "rt.h"

oklc_status oklc_stream_create(oklc_device *d, oklc_stream **out)
{
    oklc_rt_dl_enter();
    if (!d || !out)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_stream_create: NULL %s",
                            d ? "out" : "device");
    *out = NULL;
    oklc_stream *s = oklc_malloc(sizeof *s);
    if (!s)
        return oklc_rt_oom();
    *s = (oklc_stream){.dev = d};
    oklc_status st = d->ops->stream_new ? d->ops->stream_new(d, &s->handle) : OKLC_OK;
    if (st) {
        oklc_free(s);
        return st;
    }
    s->next = d->streams;
    d->streams = s;
    *out = s;
    return OKLC_OK;
}

void oklc_stream_free(oklc_stream *s)
{
    oklc_rt_dl_enter();
    if (!s)
        return;
    oklc_device *d = s->dev;
    if (d->current == s)
        d->current = NULL;
    for (oklc_stream **p = &d->streams; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            break;
        }
    if (d->ops->stream_free)
        d->ops->stream_free(d, s->handle);    /* after its work */
    oklc_free(s);
}

oklc_status oklc_device_set_stream(oklc_device *d, oklc_stream *s)
{
    if (!d)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_device_set_stream: NULL device");
    if (s && s->dev != d)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_device_set_stream: the stream is one of "
                            "another device (%s '%s')", s->dev->ops->title,
                            s->dev->label ? s->dev->label : s->dev->ops->name);
    d->current = s;
    return OKLC_OK;
}

oklc_stream *oklc_device_stream(const oklc_device *d)
{
    return d ? d->current : NULL;
}

oklc_status oklc_stream_finish(oklc_device *d, oklc_stream *s)
{
    oklc_rt_dl_enter();
    if (!d)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_stream_finish: NULL device");
    if (s && s->dev != d)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_stream_finish: the stream is one of "
                            "another device");
    if (!d->ops->stream_finish)
        return d->ops->finish(d);
    return d->ops->stream_finish(d, s ? s->handle : NULL);
}

/* Every stream: the default one (the kind's finish), then those made. */
oklc_status oklc_device_finish(oklc_device *d)
{
    oklc_rt_dl_enter();
    if (!d)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_device_finish: the device is NULL");
    oklc_status st = d->ops->finish(d);
    for (oklc_stream *s = d->streams; s && d->ops->stream_finish; s = s->next) {
        oklc_status one = d->ops->stream_finish(d, s->handle);
        st = st ? st : one;
    }
    return st;
}

oklc_status oklc_event_record(oklc_device *d, oklc_event **out)
{
    oklc_rt_dl_enter();
    if (!d || !out)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_event_record: NULL %s",
                            d ? "out" : "device");
    *out = NULL;
    oklc_event *e = oklc_malloc(sizeof *e);
    if (!e)
        return oklc_rt_oom();
    *e = (oklc_event){.dev = d};
    oklc_status st = d->ops->event_record
                         ? d->ops->event_record(d, oklc_rt_stream(d), &e->handle)
                         : d->ops->finish(d);
    e->host_time = oklc_rt_seconds();
    if (st) {
        oklc_free(e);
        return st;
    }
    *out = e;
    return OKLC_OK;
}

oklc_status oklc_event_wait(oklc_event *e)
{
    oklc_rt_dl_enter();
    if (!e)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_event_wait: NULL event");
    return e->dev->ops->event_wait ? e->dev->ops->event_wait(e->dev, e->handle) : OKLC_OK;
}

oklc_status oklc_event_elapsed(oklc_event *from, oklc_event *to, double *seconds)
{
    oklc_rt_dl_enter();
    if (!from || !to || !seconds)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_event_elapsed: NULL %s",
                            !from ? "from" : !to ? "to" : "seconds");
    if (from->dev != to->dev)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_event_elapsed: the events are of two "
                            "devices");
    *seconds = 0;
    oklc_status st = oklc_event_wait(from);
    if (!st)
        st = oklc_event_wait(to);
    if (st || !from->dev->ops->event_elapsed) {
        *seconds = to->host_time - from->host_time;
        return st;
    }
    return from->dev->ops->event_elapsed(from->dev, from->handle, to->handle, seconds);
}

void oklc_event_free(oklc_event *e)
{
    oklc_rt_dl_enter();
    if (!e)
        return;
    if (e->dev->ops->event_free)
        e->dev->ops->event_free(e->dev, e->handle);
    oklc_free(e);
}
