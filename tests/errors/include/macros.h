// Macros for the kernels.
#define IDX(i, j) ((i) * 16 + (j))
