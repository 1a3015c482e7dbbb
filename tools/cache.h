/*
 * cache.h - the command `oklc cache list|show|clear|prune` (tools/cache.c),
 * which tools/oklc.c hands its arguments to.
 */
#ifndef OKLC_TOOLS_CACHE_H
#define OKLC_TOOLS_CACHE_H

/* argv[0] is "cache", then the subcommand and its options; gives the exit
 * status (0; 1 a failure; 2 wrong usage). */
int oklc_cmd_cache(int argc, char **argv);

extern const char oklc_cache_help[];

#endif
