// A header with a mistake on line 4.
int helper(int x);

#elif HELPER
