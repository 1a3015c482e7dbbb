// A header with nothing wrong in it.
#define OK_H 1
