// The host launcher the OpenCL backend would write for source.cl
// (docs/launchers.md): grids from the scalar n, device kernels in order, a
// kernel whose grid is empty on some axis not run. Three more entries that
// fail on purpose: tooBig asks for a work-group larger than any device
// takes, noSuchFunction for a device kernel the metadata does not list,
// returnsThree fails on its own.
struct _occa_launch_api {
    int version;
    void *device;
    int (*run)(void *device, int index, const unsigned long grid[3],
               const unsigned long block[3], void *const *args);
};

static int launch(const _occa_launch_api *api, int index, const unsigned long grid[3],
                  const unsigned long block[3], void *const *args)
{
    for (int a = 0; a < 3; ++a)
        if (grid[a] == 0 || block[a] == 0)
            return 0;
    return api->run(api->device, index, grid, block, args);
}

static unsigned long blocks(int n, int size)
{
    return n > 0 ? (unsigned long)((n + size - 1) / size) : 0;
}

extern "C" int _occa_launch_axpyScale(const _occa_launch_api *api, void *const *args)
{
    const int n = *static_cast<const int *>(args[0]);
    int r;
    {
        const unsigned long grid[3] = {blocks(n, 16), 1, 1};
        const unsigned long block[3] = {16, 1, 1};
        if ((r = launch(api, 0, grid, block, args)))
            return r;
    }
    {
        const unsigned long grid[3] = {blocks(n, 8), 1, 1};
        const unsigned long block[3] = {4, 2, 1};
        if ((r = launch(api, 1, grid, block, args)))
            return r;
    }
    return 0;
}

extern "C" int _occa_launch_tooBig(const _occa_launch_api *api, void *const *args)
{
    const unsigned long grid[3] = {1, 1, 1};
    const unsigned long block[3] = {1ul << 20, 1, 1};
    return launch(api, 0, grid, block, args);
}

extern "C" int _occa_launch_noSuchFunction(const _occa_launch_api *api, void *const *args)
{
    const unsigned long grid[3] = {1, 1, 1};
    const unsigned long block[3] = {1, 1, 1};
    return launch(api, 7, grid, block, args);
}

extern "C" int _occa_launch_returnsThree(const _occa_launch_api *api, void *const *args)
{
    (void)api;
    (void)args;
    return 3;
}
