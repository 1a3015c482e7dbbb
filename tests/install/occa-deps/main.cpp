#include <cstdio>

extern "C" int occa_like_transpile(const char *file, const char *mode, const char *out);

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    int st = occa_like_transpile(argv[1], argv[2], argv[3]);
    printf("occa_like: %s\n", st ? "failed" : "transpiled");
    return st;
}
