/* slurp.h - a whole file as a string, for the standalone test tools of
 * this folder (clbuild.c, rtc_check.c), which link nothing of oklc. */
#ifndef OKLC_TEST_SLURP_H
#define OKLC_TEST_SLURP_H
#include <stdio.h>
#include <stdlib.h>

/* The file's bytes and a '\0' (malloc'd), or NULL. */
static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *text = NULL;
  if (fseek(f, 0, SEEK_END) == 0) {
    const long n = ftell(f);
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)n + 1))) {
      if (fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
      } else {
        text[n] = '\0';
      }
    }
  }
  fclose(f);
  return text;
}

#endif
