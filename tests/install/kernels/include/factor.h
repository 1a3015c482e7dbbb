#define FACTOR 3.5f
