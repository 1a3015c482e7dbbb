/*
 * clbuild - builds OpenCL C source files with the first OpenCL device found
 * (PoCL here), as the OpenCL runtime device will: the files are passed to
 * clCreateProgramWithSource as one program, each preceded by a #line
 * directive naming it, and built with OPTIONS (default: -cl-std=CL1.2
 * -Werror). Prints the build log and exits 1 when the build fails.
 *
 *   clbuild [-o OPTIONS] [-t] [-r KERNEL [-l FILE]] FILE...
 *
 * -t prints the time clBuildProgram took. -r runs KERNEL(global int *result,
 * global const float *in) on one work-group of 64 work-items, with in[i] = i
 * (256 floats) and result zeroed (1024 ints), and reads result back: a
 * self-checking kernel counts its checks in result[0] and its failures in
 * result[1], and stores the line of each failed check from result[2] on.
 * Prints them as lines of -l FILE (default: the last FILE); exits 1 when a
 * check failed or none ran.
 *
 * Build: cc clbuild.c -o clbuild -lOpenCL
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 199309L
#endif
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RESULTS 1024
#define INPUTS 256
#define GROUP 64

#include "slurp.h"

static int fail(const char *what, cl_int err) {
  fprintf(stderr, "clbuild: %s failed (OpenCL error %d)\n", what, (int)err);
  return 1;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  const char *options = "-cl-std=CL1.2 -Werror", *kernel_name = NULL, *lines_of = NULL;
  int timing = 0, first = 1;
  while (first < argc && argv[first][0] == '-') {
    if (!strcmp(argv[first], "-o") && first + 1 < argc) {
      options = argv[first + 1];
      first += 2;
    } else if (!strcmp(argv[first], "-r") && first + 1 < argc) {
      kernel_name = argv[first + 1];
      first += 2;
    } else if (!strcmp(argv[first], "-l") && first + 1 < argc) {
      lines_of = argv[first + 1];
      first += 2;
    } else if (!strcmp(argv[first], "-t")) {
      timing = 1;
      first += 1;
    } else {
      break;
    }
  }
  if (first >= argc) {
    fprintf(stderr, "usage: clbuild [-o OPTIONS] [-t] [-r KERNEL [-l FILE]] FILE...\n");
    return 2;
  }

  /* The sources: "#line 1 "FILE"" and FILE's text, for each file. */
  const int files = argc - first;
  const char **parts = calloc(2 * (size_t)files, sizeof *parts);
  if (!parts) return 1;
  for (int i = 0; i < files; ++i) {
    const char *path = argv[first + i];
    char *line = malloc(strlen(path) + 16);
    char *text = slurp(path);
    if (!line || !text) {
      fprintf(stderr, "clbuild: cannot read %s\n", path);
      return 1;
    }
    sprintf(line, "#line 1 \"%s\"\n", path);
    parts[2 * i] = line;
    parts[2 * i + 1] = text;
  }

  cl_platform_id platform;
  cl_device_id device;
  cl_uint count = 0;
  cl_int err = clGetPlatformIDs(1, &platform, &count);
  if (err != CL_SUCCESS || count == 0) return fail("clGetPlatformIDs (no OpenCL platform?)", err);
  err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, &count);
  if (err != CL_SUCCESS || count == 0) return fail("clGetDeviceIDs", err);
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  if (!context) return fail("clCreateContext", err);
  cl_program program =
      clCreateProgramWithSource(context, (cl_uint)(2 * files), parts, NULL, &err);
  if (!program) return fail("clCreateProgramWithSource", err);

  const double start = now();
  const cl_int built = clBuildProgram(program, 1, &device, options, NULL, NULL);
  const double seconds = now() - start;
  size_t size = 0;
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size);
  char *log = calloc(size + 1, 1);
  if (log && size) clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log, NULL);
  if (built != CL_SUCCESS) {
    fprintf(stderr, "clbuild: build failed (OpenCL error %d) with %s:\n%s\n", (int)built,
            options, log ? log : "");
    return 1;
  }
  if (timing) printf("clBuildProgram: %.0f ms\n", 1000 * seconds);
  if (!kernel_name) return 0;

  cl_kernel kernel = clCreateKernel(program, kernel_name, &err);
  if (!kernel) return fail("clCreateKernel", err);
  cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
  if (!queue) return fail("clCreateCommandQueue", err);
  static cl_int result[RESULTS];
  static cl_float in[INPUTS];
  for (int i = 0; i < INPUTS; ++i) in[i] = (cl_float)i;
  cl_mem result_mem = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                     sizeof result, result, &err);
  if (!result_mem) return fail("clCreateBuffer", err);
  cl_mem in_mem =
      clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
  if (!in_mem) return fail("clCreateBuffer", err);
  if ((err = clSetKernelArg(kernel, 0, sizeof(cl_mem), &result_mem)) != CL_SUCCESS ||
      (err = clSetKernelArg(kernel, 1, sizeof(cl_mem), &in_mem)) != CL_SUCCESS)
    return fail("clSetKernelArg", err);
  const size_t global = GROUP, local = GROUP;
  err = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL);
  if (err != CL_SUCCESS) return fail("clEnqueueNDRangeKernel", err);
  err = clEnqueueReadBuffer(queue, result_mem, CL_TRUE, 0, sizeof result, result, 0, NULL, NULL);
  if (err != CL_SUCCESS) return fail("clEnqueueReadBuffer", err);

  const char *file = lines_of ? lines_of : argv[argc - 1];
  for (int i = 0; i < result[1] && i + 2 < RESULTS; ++i)
    printf("%s:%d: check failed\n", file, (int)result[i + 2]);
  if (result[0] == 0 || result[1] != 0) {
    printf("%s: %d checks, %d failed\n", kernel_name, (int)result[0], (int)result[1]);
    return 1;
  }
  if (timing) printf("%s: %d checks passed\n", kernel_name, (int)result[0]);
  clReleaseMemObject(in_mem);
  clReleaseMemObject(result_mem);
  clReleaseCommandQueue(queue);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseContext(context);
  return 0;
}
