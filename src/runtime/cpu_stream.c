/*
 * cpu_stream.c - the streams of the serial and OpenMP devices: a worker
 * thread each, running its queue of tasks (kernel runs, with a copy of
 * their arguments; copies; event marks) in order, so that two streams'
 * work overlaps. The default stream has no thread: its work runs in the
 * calling thread, as it always did. A task's failure (a kernel that
 * refused its run) is kept and reported by the stream's next finish.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

typedef enum TaskKind { T_RUN, T_COPY, T_MARK } TaskKind;

typedef struct CpuEvent {
    pthread_mutex_t lock;
    pthread_cond_t  cond;
    bool            done;
    double          time;     /* the host's monotonic clock, seconds */
} CpuEvent;

typedef struct Task {
    struct Task *next;
    TaskKind     kind;
    CpuRun       run;         /* T_RUN: how, the kernel, its arguments (the kinds), and */
    oklc_kernel *k;
    int          nargs;       /* the pointers to their values, into data */
    oklc_arg    *args;
    void       **ptrs;
    void        *dst;         /* T_COPY */
    const void  *src;
    size_t       bytes;
    CpuEvent    *event;       /* T_MARK */
    max_align_t  data[];
} Task;

typedef struct CpuStream {
    pthread_t       thread;
    pthread_mutex_t lock;
    pthread_cond_t  work, idle;
    Task           *head, *tail;
    bool            busy, stop;
    char           *error;    /* the first failure since the last finish */
} CpuStream;

static void mark(CpuEvent *e)
{
    pthread_mutex_lock(&e->lock);
    e->time = oklc_rt_seconds();
    e->done = true;
    pthread_cond_broadcast(&e->cond);
    pthread_mutex_unlock(&e->lock);
}

static void execute(CpuStream *s, Task *t)
{
    oklc_status st = OKLC_OK;
    if (t->kind == T_RUN)
        st = t->run(t->k, t->nargs, t->args, t->ptrs);
    else if (t->kind == T_COPY)
        memcpy(t->dst, t->src, t->bytes);
    else
        mark(t->event);
    if (st) {
        char *why = oklc_rt_strdup(oklc_last_error());
        pthread_mutex_lock(&s->lock);
        if (!s->error)
            s->error = why, why = NULL;
        pthread_mutex_unlock(&s->lock);
        oklc_free(why);
    }
}

static void *worker(void *arg)
{
    CpuStream *s = arg;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (!s->head && !s->stop)
            pthread_cond_wait(&s->work, &s->lock);
        if (!s->head)
            break;
        Task *t = s->head;
        s->head = t->next;
        if (!s->head)
            s->tail = NULL;
        s->busy = true;
        pthread_mutex_unlock(&s->lock);
        execute(s, t);
        oklc_free(t);
        pthread_mutex_lock(&s->lock);
        s->busy = false;
        if (!s->head)
            pthread_cond_broadcast(&s->idle);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

static void push(CpuStream *s, Task *t)
{
    pthread_mutex_lock(&s->lock);
    if (s->tail)
        s->tail->next = t;
    else
        s->head = t;
    s->tail = t;
    pthread_cond_signal(&s->work);
    pthread_mutex_unlock(&s->lock);
}

static Task *task(TaskKind kind, size_t extra)
{
    Task *t = oklc_malloc(sizeof *t + extra);
    if (t)
        memset(t, 0, sizeof *t), t->kind = kind;
    return t;
}

oklc_status oklc_cpu_stream_new(oklc_device *d, void **stream)
{
    (void)d;
    CpuStream *s = oklc_malloc(sizeof *s);
    if (!s)
        return oklc_rt_oom();
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->work, NULL);
    pthread_cond_init(&s->idle, NULL);
    if (pthread_create(&s->thread, NULL, worker, s)) {
        pthread_mutex_destroy(&s->lock);
        pthread_cond_destroy(&s->work);
        pthread_cond_destroy(&s->idle);
        oklc_free(s);
        return oklc_rt_fail(OKLC_ERR_DEVICE, "oklc_stream_create: cannot start its thread");
    }
    *stream = s;
    return OKLC_OK;
}

oklc_status oklc_cpu_stream_finish(oklc_device *d, void *stream)
{
    (void)d;
    CpuStream *s = stream;
    if (!s)
        return OKLC_OK;    /* the default stream: its work is done */
    pthread_mutex_lock(&s->lock);
    while (s->head || s->busy)
        pthread_cond_wait(&s->idle, &s->lock);
    char *why = s->error;
    s->error = NULL;
    pthread_mutex_unlock(&s->lock);
    oklc_status st = why ? oklc_rt_fail(OKLC_ERR_ARGUMENT, "in a stream: %s", why) : OKLC_OK;
    oklc_free(why);
    return st;
}

void oklc_cpu_stream_free(oklc_device *d, void *stream)
{
    CpuStream *s = stream;
    oklc_cpu_stream_finish(d, s);
    pthread_mutex_lock(&s->lock);
    s->stop = true;
    pthread_cond_signal(&s->work);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->work);
    pthread_cond_destroy(&s->idle);
    oklc_free(s->error);
    oklc_free(s);
}

/* A run queued: the arguments' values copied (a struct's bytes too), the
 * pointers made to point at the copies. */
oklc_status oklc_cpu_stream_run(void *stream, CpuRun run, oklc_kernel *k, int nargs,
                                const oklc_arg *args, void *const *ptrs)
{
    size_t size = (size_t)nargs * (sizeof(oklc_arg) + sizeof(void *) + sizeof(max_align_t));
    for (int i = 0; i < nargs; i++)
        size += args[i].kind == OKLC_ARG_STRUCT ? args[i].u.bytes.size : sizeof(Slot);
    Task *t = task(T_RUN, size);
    if (!t)
        return oklc_rt_oom();
    t->run = run, t->k = k, t->nargs = nargs;
    t->args = (oklc_arg *)t->data;
    t->ptrs = (void **)(t->args + nargs);
    char *at = (char *)(t->ptrs + nargs);
    memcpy(t->args, args, (size_t)nargs * sizeof *args);
    for (int i = 0; i < nargs; i++) {
        size_t n = args[i].kind == OKLC_ARG_STRUCT ? args[i].u.bytes.size : sizeof(Slot);
        at = (char *)(((uintptr_t)at + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1));
        memcpy(at, ptrs[i], n);
        t->ptrs[i] = at;
        at += n;
    }
    push(stream, t);
    return OKLC_OK;
}

oklc_status oklc_cpu_stream_copy(void *stream, void *dst, const void *src, size_t bytes)
{
    Task *t = task(T_COPY, 0);
    if (!t)
        return oklc_rt_oom();
    t->dst = dst, t->src = src, t->bytes = bytes;
    push(stream, t);
    return OKLC_OK;
}

oklc_status oklc_cpu_event_record(oklc_device *d, void *stream, void **event)
{
    (void)d;
    CpuEvent *e = oklc_malloc(sizeof *e);
    Task *t = stream ? task(T_MARK, 0) : NULL;
    if (!e || (stream && !t)) {
        oklc_free(e), oklc_free(t);
        return oklc_rt_oom();
    }
    memset(e, 0, sizeof *e);
    pthread_mutex_init(&e->lock, NULL);
    pthread_cond_init(&e->cond, NULL);
    if (t) {
        t->event = e;
        push(stream, t);
    } else {
        mark(e);    /* the default stream: its work is done */
    }
    *event = e;
    return OKLC_OK;
}

oklc_status oklc_cpu_event_wait(oklc_device *d, void *event)
{
    (void)d;
    CpuEvent *e = event;
    pthread_mutex_lock(&e->lock);
    while (!e->done)
        pthread_cond_wait(&e->cond, &e->lock);
    pthread_mutex_unlock(&e->lock);
    return OKLC_OK;
}

oklc_status oklc_cpu_event_elapsed(oklc_device *d, void *from, void *to, double *seconds)
{
    (void)d;
    *seconds = ((CpuEvent *)to)->time - ((CpuEvent *)from)->time;
    return OKLC_OK;
}

void oklc_cpu_event_free(oklc_device *d, void *event)
{
    CpuEvent *e = event;
    oklc_cpu_event_wait(d, e);    /* its mark may still be queued */
    pthread_mutex_destroy(&e->lock);
    pthread_cond_destroy(&e->cond);
    oklc_free(e);
}
