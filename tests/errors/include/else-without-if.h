int helper(int x);
#else
