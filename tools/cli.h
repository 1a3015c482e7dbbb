/*
 * cli.h - what the command's parts share (tools/cli.c).
 */
#ifndef OKLC_TOOLS_CLI_H
#define OKLC_TOOLS_CLI_H

#include <stdbool.h>
#include <stddef.h>

/* "oklc: error: " fmt (with arg), a hint to `command --help`; returns 2. */
int cli_usage_error(const char *command, const char *fmt, const char *arg);
const char *cli_option_value(int argc, char **argv, int *i, const char *name);
bool cli_is_option(const char *a, const char *name);
/* The text to path (standard output when NULL): atomically for a regular
 * file, straight into a pipe or device; a message when it fails. */
bool cli_write_output(const char *path, const char *text, size_t len);
/* n bytes for people: "23.4 GiB", "512 bytes"; in buf, returned. */
const char *cli_bytes(unsigned long long n, char buf[32]);
/* mkdir -p DIR (0777 less the umask); 0, else -1 with errno. */
int cli_mkdirs(const char *dir);

#endif
