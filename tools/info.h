/*
 * info.h - the command `oklc info [--format text|json]` (tools/info.c),
 * which tools/oklc.c hands its arguments to.
 */
#ifndef OKLC_TOOLS_INFO_H
#define OKLC_TOOLS_INFO_H

/* argv[0] is "info", then its options. Prints every device found; gives
 * the exit status (0; 2 wrong usage). */
int oklc_cmd_info(int argc, char **argv);

extern const char oklc_info_help[];

#endif
