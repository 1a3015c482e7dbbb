// okl::at for compiling the OKL test kernels with the CPU prelude: the
// backends rewrite okl::at(m, i, j) into a flat index, so the prelude does
// not define it; this stand-in only lets the kernels that use it build.
namespace okl {
template <class T, class... Index> T &at(T *array, Index...) { return *array; }
} // namespace okl
