int helper(int x);
#endif
