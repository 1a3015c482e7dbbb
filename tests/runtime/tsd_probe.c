/*
 * tsd_probe.c - a library that test_runtime_gpu loads into a link-map
 * namespace of its own, as dl.c loads vendor libraries. It takes pthread
 * keys from its namespace's C library and says whether any of them reads
 * a given value for the calling thread: the slots of the thread are shared
 * by every namespace's keys, so a runtime that kept its per-thread values
 * under pthread keys of the main namespace would have them read (and
 * written) through these.
 *
 * It only reads: the slots hold values of the main namespace's keys (the
 * sanitizers', drivers') that a write would destroy. Only first-level keys
 * (the first 32), whose slots live in the thread's descriptor.
 */
#include <pthread.h>

enum { KEYS = 32 };

static pthread_key_t keys[KEYS];
static int made;

/* Takes the keys (once); their number. */
int tsd_probe_keys(void)
{
    while (made < KEYS && pthread_key_create(&keys[made], NULL) == 0)
        made++;
    return made;
}

/* 1 when one of the keys reads p on this thread. */
int tsd_probe_sees(const void *p)
{
    for (int i = 0; i < made; i++)
        if (pthread_getspecific(keys[i]) == p)
            return 1;
    return 0;
}
