#define FIRST 1
