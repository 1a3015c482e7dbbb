/*
 * compile_commands.h - the command `oklc compile-commands [options] DIR`
 * (tools/compile_commands.c), which tools/oklc.c hands its arguments to.
 */
#ifndef OKLC_TOOLS_COMPILE_COMMANDS_H
#define OKLC_TOOLS_COMPILE_COMMANDS_H

/* argv[0] is "compile-commands", then its options and DIR. Writes
 * DIR/compile_commands.json; gives the exit status (0, 1 error, 2 usage). */
int oklc_cmd_compile_commands(int argc, char **argv);

#endif
