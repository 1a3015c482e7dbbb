/*
 * rtc_check - compiles CUDA or HIP device source with the runtime compiler
 * the runtime devices use: NVRTC (built with -DRTC_NVRTC) or hiprtc
 * (-DRTC_HIPRTC). No GPU is needed. The files are given to the compiler as
 * one program, each preceded by a #line directive naming it (the prelude
 * and a kernel pasted together, as the backends do); the arguments before
 * them that start with '-' are the compiler's options.
 *
 *   rtc_check [-t] OPTION... FILE...
 *
 * Prints the compiler's log and exits 1 when the compilation fails or the
 * log is not empty (a warning fails); -t prints the compile time.
 *
 * Build: cc -DRTC_NVRTC -I$CUDA/include rtc_check.c -L$CUDA/lib64 -lnvrtc
 *        cc -DRTC_HIPRTC -D__HIP_PLATFORM_AMD__ rtc_check.c -lamdhip64
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(RTC_NVRTC)
#include <nvrtc.h>
#define RTC(name) nvrtc##name
#define RTC_SUCCESS NVRTC_SUCCESS
typedef const char *const *options_t;
#elif defined(RTC_HIPRTC)
#include <hip/hiprtc.h>
#define RTC(name) hiprtc##name
#define RTC_SUCCESS HIPRTC_SUCCESS
typedef const char **options_t;
#else
#error "define RTC_NVRTC or RTC_HIPRTC"
#endif

#include "slurp.h"

int main(int argc, char **argv) {
  int first = 1, timing = 0;
  if (first < argc && !strcmp(argv[first], "-t")) {
    timing = 1;
    ++first;
  }
  int files = first;
  while (files < argc && argv[files][0] == '-') ++files;
  if (files >= argc) {
    fprintf(stderr, "usage: rtc_check [-t] OPTION... FILE...\n");
    return 2;
  }

  size_t size = 1;
  char *source = calloc(1, 1);
  for (int i = files; i < argc && source; ++i) {
    char *text = slurp(argv[i]);
    if (!text) {
      fprintf(stderr, "rtc_check: cannot read %s\n", argv[i]);
      return 1;
    }
    size += strlen(argv[i]) + strlen(text) + 16;
    char *more = realloc(source, size);
    if (more) sprintf(more + strlen(more), "#line 1 \"%s\"\n%s", argv[i], text);
    source = more;
    free(text);
  }
  if (!source) return 1;

  RTC(Program) program;
  if (RTC(CreateProgram)(&program, source, argv[argc - 1], 0, NULL, NULL) != RTC_SUCCESS) {
    fprintf(stderr, "rtc_check: cannot create the program\n");
    return 1;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  const int status =
      RTC(CompileProgram)(program, files - first, (options_t)(argv + first));
  clock_gettime(CLOCK_MONOTONIC, &t1);
  size_t log_size = 0;
  RTC(GetProgramLogSize)(program, &log_size);
  char *log = calloc(log_size + 1, 1);
  if (log && log_size > 1) RTC(GetProgramLog)(program, log);
  int empty = 1;
  for (const char *c = log ? log : ""; *c; ++c)
    if (*c != ' ' && *c != '\n' && *c != '\r' && *c != '\t') empty = 0;
  if (status != RTC_SUCCESS || !empty) {
    printf("%s%s", log ? log : "", status != RTC_SUCCESS ? "" : "rtc_check: warnings\n");
    if (status != RTC_SUCCESS) printf("rtc_check: %s\n", RTC(GetErrorString)(status));
    return 1;
  }
  if (timing)
    printf("compile: %.0f ms\n",
           1e3 * (double)(t1.tv_sec - t0.tv_sec) + 1e-6 * (double)(t1.tv_nsec - t0.tv_nsec));
  RTC(DestroyProgram)(&program);
  free(log);
  free(source);
  return 0;
}
