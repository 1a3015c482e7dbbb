// A header that forgets its #endif.
#ifndef UNTERMINATED_IF_H
#define UNTERMINATED_IF_H
int helper(int x);
