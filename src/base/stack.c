/*
 * stack.c - running a stage on a stack of a known size.
 *
 * Clang's parser recurses once per level of an else-if chain, a = b = c,
 * a ?: chain or a run of unary operators, and the stages after it walk
 * the statement tree. A host program may call the library from a thread
 * of 256 KB; a kernel Clang accepts may need a hundred megabytes. So the
 * deep stages run on a thread of ours whose stack is sized from the input
 * (oklc_parse_stack); the pages are only reserved, and used as deep as the
 * input goes.
 */
#include <pthread.h>

#include "base.h"

typedef struct Job {
    void (*fn)(void *);
    void *arg;
} Job;

static void *run_job(void *p)
{
    Job *j = p;
    j->fn(j->arg);
    return NULL;
}

bool oklc_run_on_stack(size_t size, void (*fn)(void *), void *arg)
{
    Job j = {fn, arg};
    pthread_attr_t attr;
    pthread_t t;
    if (pthread_attr_init(&attr))
        return false;
    bool ok = !pthread_attr_setstacksize(&attr, size) &&
              !pthread_create(&t, &attr, run_job, &j);
    pthread_attr_destroy(&attr);
    if (ok)
        pthread_join(t, NULL);
    return ok;
}
