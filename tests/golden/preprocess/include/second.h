#ifndef SECOND_H
#define SECOND_H
#define SECOND 2
// included once only
#endif
