#!/usr/bin/env bash
# The installed oklc, as its users see it (ctest install.*):
#   run.sh install   BUILD SRC WORK   cmake --install into WORK/prefix; its files
#   run.sh cmake     BUILD SRC WORK   a CMake project: find_package(oklc), oklc::oklc
#   run.sh pkgconfig BUILD SRC WORK   a Makefile: pkg-config --cflags --libs oklc
#   run.sh dlopen    BUILD SRC WORK   a shared object linking liboklc, dlopen'ed
#   run.sh symbols   BUILD SRC WORK   liboklc.so exports oklc_* only
#   run.sh kernels   BUILD SRC WORK   oklc_add_kernels: build-time kernels, header tracking
#   run.sh moved     BUILD SRC WORK   a prefix moved after installing still works
#   run.sh occa-deps BUILD SRC WORK   share/oklc/occa-transpiler as OCCA's deps/occa-transpiler
#   run.sh no-test-tools BUILD SRC WORK   configuring with -DBUILD_TESTING=OFF needs
#                                     only the build's libraries (no cmocka)
# Each program builds examples/kernels/addVectors.okl on the serial device
# and checks the sum. The later modes use the prefix "install" made.
set -euo pipefail
mode=$1 build=$2 src=$3 work=$4
prefix=$work/prefix
kernel=$src/examples/kernels/addVectors.okl
here=$src/tests/install
export OKLC_CACHE_DIR=$work/cache
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
export LD_LIBRARY_PATH=$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fail() { echo "install.$mode: $*" >&2; exit 1; }

case $mode in
install)
    rm -rf "$work"
    mkdir -p "$work"
    cmake --install "$build" --prefix "$prefix" >"$work/install.log"
    for f in bin/oklc lib/liboklc.so lib/liboklc.so.0 lib/liboklc.a \
             include/oklc/oklc.h include/oklc/runtime.h include/oklc/plugin.h \
             lib/pkgconfig/oklc.pc lib/cmake/oklc/oklcConfig.cmake \
             lib/cmake/oklc/oklcConfigVersion.cmake lib/cmake/oklc/oklcTargets.cmake \
             lib/cmake/oklc/oklcKernels.cmake lib/cmake/oklc/oklcOkltTargets.cmake \
             lib/liboklc-oklt.so.0 include/oklt/pipeline/normalizer_and_transpiler.h \
             include/oklt/core/error.h include/oklt/util/io_helper.h \
             share/oklc/occa-transpiler/CMakeLists.txt \
             share/man/man1/oklc.1 share/doc/oklc/README.md; do
        [ -e "$prefix/$f" ] || fail "$f not installed"
    done
    # Nothing installed names the build or source tree, nor the preludes'
    # sources: they are compiled in. (Debug information aside, and whole
    # strings only: assertions and sanitizers name source files.)
    if grep -rlF -e "$build" -e "$src/" "$prefix/lib/pkgconfig" "$prefix/lib/cmake"; then
        fail "the pkg-config or CMake files name the build or source tree"
    fi
    for bin in "$prefix/lib/liboklc.so.0" "$prefix/lib/liboklc-oklt.so.0" "$prefix/bin/oklc"; do
        objcopy --strip-debug "$bin" "$work/stripped"
        if strings "$work/stripped" | grep -xF -e "$build" -e "$src" -e "$src/include" \
                -e "$src/include/oklc" -e "$src/include/oklc/okl.hpp" \
                -e "$src/src/backends" -e "$src/src/backends/cpu_prelude.hpp" \
                -e "$src/src/backends/cuda_prelude.cuh" -e "$src/src/backends/opencl_prelude.cl" \
                -e "$src/src/runtime/dpcpp_support.cpp"; then
            fail "$bin names the build or source tree"
        fi
    done
    rm -f "$work/stripped"
    "$prefix/bin/oklc" --version >/dev/null || fail "bin/oklc --version"
    echo "installed into $prefix"
    ;;
cmake)
    rm -rf "$work/cmake"
    cmake -S "$here/cmake" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
          -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="${CFLAGS:-}" >"$work/cmake.log" || { cat "$work/cmake.log"; fail configure; }
    cmake --build "$work/cmake" >>"$work/cmake.log" || { cat "$work/cmake.log"; fail build; }
    "$work/cmake/addvec" "$kernel" serial
    readelf -d "$work/cmake/addvec_static" | grep -q 'NEEDED.*liboklc' &&
        fail "addvec_static links liboklc.so, not liboklc.a"
    "$work/cmake/addvec_static" "$kernel" serial
    ;;
pkgconfig)
    rm -rf "$work/pc" && mkdir -p "$work/pc"
    make -s -C "$work/pc" -f "$here/pkgconfig/Makefile" SRC="$here" addvec
    "$work/pc/addvec" "$kernel" serial
    ;;
dlopen)
    rm -rf "$work/dl" && mkdir -p "$work/dl"
    make -s -C "$work/dl" -f "$here/pkgconfig/Makefile" SRC="$here" libaddvec.so dlopen
    readelf -d "$work/dl/libaddvec.so" | grep -q 'NEEDED.*liboklc.so.0' ||
        fail "libaddvec.so does not link liboklc.so.0"
    "$work/dl/dlopen" "$work/dl/libaddvec.so" "$kernel" serial
    ;;
symbols)
    lib=$prefix/lib/liboklc.so
    readelf -d "$lib" | grep -q 'SONAME.*\[liboklc\.so\.0\]' || fail "SONAME is not liboklc.so.0"
    others=$(nm -D --defined-only "$lib" | awk '{print $NF}' | grep -v '^oklc_' || true)
    [ -z "$others" ] || fail "exports more than oklc_*: $others"
    # Every function the public headers declare (but the inline ones) is exported.
    headers=("$prefix"/include/oklc/oklc.h "$prefix"/include/oklc/runtime.h)
    declared=$(cat "${headers[@]}" | grep -o '\boklc_[a-z0-9_]*(' | tr -d '(' | sort -u)
    inline=$(cat "${headers[@]}" | grep 'static inline' | grep -o '\boklc_[a-z0-9_]*(' |
             tr -d '(' | sort -u)
    exported=$(nm -D --defined-only "$lib" | awk '{print $NF}' | sort -u)
    missing=$(comm -23 <(echo "$declared") <(sort -u <(echo "$exported"; echo "$inline")))
    [ -z "$missing" ] || fail "declared, not exported: $missing"
    echo "liboklc.so: $(echo "$exported" | wc -l) symbols, all oklc_*"
    ;;
kernels)
    for batch in OFF ON; do
        # A copy of the project: the test edits its header.
        proj=$work/kproj out=$work/kproj-build/oklc/kernels
        rm -rf "$proj" "$work/kproj-build"
        cp -r "$here/kernels" "$proj"
        build_kernels() {
            cmake --build "$work/kproj-build" >"$work/kernels.log" 2>&1
        }
        cmake -S "$proj" -B "$work/kproj-build" -DCMAKE_PREFIX_PATH="$prefix" -DOKLC_TEST_BATCH=$batch \
              >"$work/kernels.log" 2>&1 || { cat "$work/kernels.log"; fail configure; }
        build_kernels || { cat "$work/kernels.log"; fail build; }
        for f in scale.serial.cpp scale.opencl.cl scale.cuda.cu scale.serial.json \
                 scale.opencl.launcher.cpp scale.cuda.launcher.cpp scale.cuda.json; do
            [ -s "$out/$f" ] || fail "$f not generated"
        done
        [ -e "$work/kproj-build/libscale_serial.so" ] || fail "the serial output did not compile"
        grep -q '3\.5f' "$out/scale.cuda.cu" || fail "FACTOR from include/factor.h not in the output"
        # Nothing changed: nothing transpiled again.
        build_kernels || fail "second build"
        if grep -q 'oklc: scale.okl' "$work/kernels.log"; then
            fail "transpiled again with nothing changed"
        fi
        # The included header changes: every backend's output again.
        sleep 1
        echo '#define FACTOR 7.25f' >"$proj/include/factor.h"
        build_kernels || { cat "$work/kernels.log"; fail "build after editing the header"; }
        [ "$(grep -c 'oklc: scale.okl' "$work/kernels.log")" = 3 ] ||
            { cat "$work/kernels.log"; fail "editing factor.h did not transpile the 3 outputs again"; }
        for f in scale.serial.cpp scale.opencl.cl scale.cuda.cu; do
            grep -q '7\.25f' "$out/$f" || fail "$f does not have the new FACTOR"
        done
        # A wrong kernel fails the build at its line, and leaves no output.
        sleep 1
        echo '#define FACTOR )' >"$proj/include/factor.h"
        if build_kernels; then fail "a broken kernel built"; fi
        grep -q 'scale.okl:7:.*error' "$work/kernels.log" ||
            { cat "$work/kernels.log"; fail "no error at scale.okl:7"; }
    done
    echo "oklc_add_kernels (a process per kernel, and BATCH): outputs, no rebuild when"
    echo "unchanged, header tracked, errors fail"
    ;;
moved)
    # Installed in one place, moved to another: nothing may point back.
    rm -rf "$work/moved-a" "$work/moved-b"
    cmake --install "$build" --prefix "$work/moved-a" >/dev/null
    mv "$work/moved-a" "$work/moved-b"
    b=$work/moved-b
    if grep -rlIF "$work/moved-a" "$b"; then fail "files name the first prefix"; fi
    "$b/bin/oklc" transpile -b serial -o "$work/moved.cpp" "$kernel" || fail "bin/oklc"
    export PKG_CONFIG_PATH=$b/lib/pkgconfig LD_LIBRARY_PATH=$b/lib
    [ "$(pkg-config --variable=prefix oklc)" -ef "$b" ] || fail "oklc.pc's prefix is not $b"
    rm -rf "$work/moved-pc" && mkdir -p "$work/moved-pc"
    make -s -C "$work/moved-pc" -f "$here/pkgconfig/Makefile" SRC="$here" addvec
    "$work/moved-pc/addvec" "$kernel" serial
    rm -rf "$work/moved-cmake"
    cmake -S "$here/cmake" -B "$work/moved-cmake" -DCMAKE_PREFIX_PATH="$b" \
          -DCMAKE_C_FLAGS="${CFLAGS:-}" >"$work/moved.log" || { cat "$work/moved.log"; fail configure; }
    cmake --build "$work/moved-cmake" >>"$work/moved.log" || { cat "$work/moved.log"; fail build; }
    "$work/moved-cmake/addvec" "$kernel" serial
    "$work/moved-cmake/addvec_static" "$kernel" serial
    echo "moved from moved-a to moved-b: oklc, pkg-config and CMake consumers work"
    ;;
occa-deps)
    # OCCA's deps/occa-transpiler: a link to the installed folder (oklc found
    # beside it), then a copy (oklc found through CMAKE_PREFIX_PATH).
    for how in link copy; do
        proj=$work/occa-$how
        rm -rf "$proj" && cp -r "$here/occa-deps" "$proj" && mkdir -p "$proj/deps"
        args=()
        if [ $how = link ]; then
            ln -s "$prefix/share/oklc/occa-transpiler" "$proj/deps/occa-transpiler"
        else
            cp -r "$prefix/share/oklc/occa-transpiler" "$proj/deps/occa-transpiler"
            args=(-DCMAKE_PREFIX_PATH="$prefix")
        fi
        cmake -S "$proj" -B "$proj/build" "${args[@]}" -DCMAKE_INSTALL_PREFIX="$proj/inst" \
              -DCMAKE_CXX_FLAGS="${CFLAGS:-}" \
              >"$proj.log" 2>&1 || { cat "$proj.log"; fail "configure ($how)"; }
        cmake --build "$proj/build" >>"$proj.log" 2>&1 || { cat "$proj.log"; fail "build ($how)"; }
        cmake --install "$proj/build" >>"$proj.log" 2>&1 || { cat "$proj.log"; fail "install ($how)"; }
        "$proj/build/occa_like_app" "$kernel" CUDA "$proj/out.cu" || fail "transpile ($how)"
        # a program linking the installed library (as OCCA's programs link
        # libocca): it finds liboklc-oklt.so, which finds liboklc.so
        (unset LD_LIBRARY_PATH
         # shellcheck disable=SC2086
         ${CXX:-g++} ${CFLAGS:-} -o "$proj/app" "$here/occa-deps/main.cpp" -L"$proj/inst/lib" -locca_like \
             -Wl,-rpath,"$proj/inst/lib" >>"$proj.log" 2>&1 || { cat "$proj.log"; exit 1; }
         "$proj/app" "$kernel" HIP "$proj/out.hip") || fail "the installed library ($how)"
        grep -q '"name":[[:space:]]*"_occa_addVectors_0"' "$proj/out.cu" ||
            fail "no metadata of _occa_addVectors_0 ($how)"
        grep -q '64 \* blockIdx.x' "$proj/out.cu" || fail "BLOCK=64 not applied ($how)"
    done
    echo "share/oklc/occa-transpiler as deps/occa-transpiler: linked and copied, built, installed"
    ;;
no-test-tools)
    # pkg-config sees only what `scripts/deps.sh build` installs
    pc=$work/pc-build-only
    rm -rf "$pc" "$work/no-tests" "$work/with-tests" && mkdir -p "$pc"
    for p in libcjson isl libxxhash; do
        cp "$(pkg-config --variable=pcfiledir "$p")/$p.pc" "$pc/"
    done
    PKG_CONFIG_LIBDIR=$pc cmake -S "$src" -B "$work/no-tests" -DBUILD_TESTING=OFF \
        >"$work/no-tests.log" 2>&1 || { cat "$work/no-tests.log"; fail "configure without tests"; }
    if PKG_CONFIG_LIBDIR=$pc cmake -S "$src" -B "$work/with-tests" >"$work/with-tests.log" 2>&1
    then fail "the tests configured without cmocka"; fi
    grep -q "cmocka" "$work/with-tests.log" || fail "the failure does not name cmocka"
    echo "-DBUILD_TESTING=OFF configures with the build's libraries alone; the tests need cmocka"
    ;;
*)
    fail "unknown mode"
    ;;
esac
