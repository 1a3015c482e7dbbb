/*
 * okl.hpp - declarations for OKL kernels written in OKL 2.0 (C++) form.
 *
 * Include it to compile or edit a normalized kernel with an ordinary C++
 * tool (IDE, clang++ -fsyntax-only). oklc itself never puts this header in
 * the code it generates.
 */
#ifndef OKLC_OKL_HPP
#define OKLC_OKL_HPP

namespace okl {

/* Element (i, j, ...) of an array declared with @dim: OKL 1.0 writes it
 * m(i, j), which C++ reads as a call; the normalized form is
 * okl::at(m, i, j). The backends replace it by the flat index, with
 * @dimOrder applied. */
template <class T, class... Index>
T &at(T *array, Index... index);

} // namespace okl

#endif
