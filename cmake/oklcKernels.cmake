# oklc_add_kernels: OKL kernels transpiled at build time (ahead of time),
# shipped in the CMake package (find_package(oklc) includes this file).
#
#   oklc_add_kernels(<target>
#     BACKENDS <backend>...          serial openmp cuda hip opencl dpcpp metal
#     FILES <kernel.okl>...
#     [DEFINES <NAME[=VALUE]>...]    oklc -D
#     [INCLUDE_DIRS <dir>...]        oklc -I
#     [INCLUDES <file>...]           oklc --include
#     [OPTIONS <option>...]          any other oklc option (-Werror, --plugin F, ...)
#     [OUTPUT_DIR <dir>]             default: ${CMAKE_CURRENT_BINARY_DIR}/oklc/<target>
#     [METADATA]                     also <name>.<backend>.json (docs/metadata.md)
#     [LAUNCHERS]                    also <name>.<backend>.launcher.cpp (GPU backends)
#     [BATCH]                        one oklc process per backend for all FILES
#                                    (oklc transpile --out-dir): less start-up for
#                                    many small kernels; an edit of one kernel then
#                                    transpiles all of the backend's again, and a
#                                    backend's kernels are not transpiled in parallel
#     [OUTPUTS <variable>])          the generated files, for the caller
#
# Each FILE and BACKEND gives OUTPUT_DIR/<name>.<backend>.<ext> (.cpp for
# serial, openmp and dpcpp, .cu, .hip.cpp, .cl, .metal). The command writes
# a depfile (oklc --depfile) naming the kernel and every file it includes,
# so editing an included header transpiles the kernel again; a kernel with
# an error fails the build at its line. <target> is made as a custom target
# built by default when it does not exist yet; an existing target (a library
# compiling the serial output, say) is made to depend on the kernels. The
# target's property OKLC_OUTPUTS lists the generated files.

function(_oklc_extension backend out)
  set(ext ${backend}.txt)
  if(backend MATCHES "^(serial|openmp|dpcpp)$")
    set(ext cpp)
  elseif(backend STREQUAL "cuda")
    set(ext cu)
  elseif(backend STREQUAL "hip")
    set(ext hip.cpp)
  elseif(backend STREQUAL "opencl")
    set(ext cl)
  elseif(backend STREQUAL "metal")
    set(ext metal)
  endif()
  set(${out} ${ext} PARENT_SCOPE)
endfunction()

# The files a kernel `name` gives for `backend` (the output first) and the
# options that ask oklc for them.
function(_oklc_outputs name backend made_out extra_out)
  _oklc_extension(${backend} ext)
  set(base ${K_OUTPUT_DIR}/${name}.${backend})
  set(made ${base}.${ext})
  set(extra)
  if(K_METADATA)
    list(APPEND made ${base}.json)
    list(APPEND extra --metadata ${base}.json)
  endif()
  if(K_LAUNCHERS AND backend MATCHES "^(cuda|hip|opencl|dpcpp|metal)$")
    list(APPEND made ${base}.launcher.cpp)
    list(APPEND extra --launcher ${base}.launcher.cpp)
  endif()
  set(${made_out} ${made} PARENT_SCOPE)
  set(${extra_out} ${extra} PARENT_SCOPE)
endfunction()

# BATCH: one command per backend (oklc transpile --out-dir, which writes the
# metadata and the launchers whether asked for or not); its depfile makes
# the first output depend on every file the kernels read.
function(_oklc_batch backend files names flags track out)
  set(all)
  foreach(name IN LISTS names)
    _oklc_outputs(${name} ${backend} made extra)
    list(APPEND all ${made})
  endforeach()
  list(JOIN names ".okl " list_text)
  set(depends)
  if(track)
    set(depends DEPFILE ${K_OUTPUT_DIR}/${backend}.batch.d)
  endif()
  add_custom_command(
    OUTPUT ${all}
    COMMAND oklc::cli transpile -b ${backend} ${flags} --out-dir ${K_OUTPUT_DIR}
            --depfile ${K_OUTPUT_DIR}/${backend}.batch.d ${files}
    DEPENDS ${files}
    ${depends}
    COMMENT "oklc: ${list_text}.okl for ${backend}"
    VERBATIM COMMAND_EXPAND_LISTS)
  set(${out} ${all} PARENT_SCOPE)
endfunction()

function(oklc_add_kernels target)
  cmake_parse_arguments(PARSE_ARGV 1 K "METADATA;LAUNCHERS;BATCH" "OUTPUT_DIR;OUTPUTS"
                        "BACKENDS;FILES;DEFINES;INCLUDE_DIRS;INCLUDES;OPTIONS")
  if(K_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "oklc_add_kernels: unknown arguments: ${K_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT K_BACKENDS OR NOT K_FILES)
    message(FATAL_ERROR "oklc_add_kernels(${target}): needs BACKENDS and FILES")
  endif()
  if(NOT TARGET oklc::cli)
    message(FATAL_ERROR "oklc_add_kernels: the oklc command (oklc::cli) is not known: "
                        "call find_package(oklc) first")
  endif()
  if(NOT K_OUTPUT_DIR)
    set(K_OUTPUT_DIR ${CMAKE_CURRENT_BINARY_DIR}/oklc/${target})
  endif()
  get_filename_component(K_OUTPUT_DIR "${K_OUTPUT_DIR}" ABSOLUTE
                         BASE_DIR ${CMAKE_CURRENT_BINARY_DIR})
  # Header changes are tracked through the depfile, which Makefile
  # generators read from CMake 3.20 on (Ninja always).
  set(track TRUE)
  if(CMAKE_VERSION VERSION_LESS 3.20 AND CMAKE_GENERATOR MATCHES "Makefiles")
    set(track FALSE)
    message(WARNING "oklc_add_kernels: CMake ${CMAKE_VERSION} does not read depfiles with "
                    "${CMAKE_GENERATOR}: a kernel is rebuilt when it changes, not when a "
                    "header it includes does (CMake 3.20 or later does)")
  endif()

  set(flags)
  foreach(d IN LISTS K_DEFINES)
    list(APPEND flags -D${d})
  endforeach()
  foreach(dir IN LISTS K_INCLUDE_DIRS)
    get_filename_component(dir "${dir}" ABSOLUTE)
    list(APPEND flags -I ${dir})
  endforeach()
  foreach(f IN LISTS K_INCLUDES)
    get_filename_component(f "${f}" ABSOLUTE)
    list(APPEND flags --include ${f})
  endforeach()
  list(APPEND flags ${K_OPTIONS})

  set(outputs)
  set(names)
  set(abs_files)
  foreach(file IN LISTS K_FILES)
    get_filename_component(file "${file}" ABSOLUTE)
    get_filename_component(name "${file}" NAME_WE)
    if(name IN_LIST names)
      message(FATAL_ERROR "oklc_add_kernels(${target}): two kernels named '${name}': their "
                          "outputs would be the same files")
    endif()
    list(APPEND names ${name})
    list(APPEND abs_files ${file})
  endforeach()

  if(K_BATCH)
    foreach(backend IN LISTS K_BACKENDS)
      _oklc_batch(${backend} "${abs_files}" "${names}" "${flags}" ${track} made)
      list(APPEND outputs ${made})
    endforeach()
    set(names)    # done
  endif()
  set(i 0)
  foreach(name IN LISTS names)
    list(GET abs_files ${i} file)
    math(EXPR i "${i} + 1")
    foreach(backend IN LISTS K_BACKENDS)
      _oklc_outputs(${name} ${backend} made extra)
      list(GET made 0 out)
      set(depends)
      if(track)
        set(depends DEPFILE ${out}.d)
      endif()
      add_custom_command(
        OUTPUT ${made}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${K_OUTPUT_DIR}
        COMMAND oklc::cli transpile -b ${backend} ${flags} ${extra} -o ${out}
                --depfile ${out}.d ${file}
        MAIN_DEPENDENCY ${file}
        ${depends}
        COMMENT "oklc: ${name}.okl for ${backend}"
        VERBATIM COMMAND_EXPAND_LISTS)
      list(APPEND outputs ${made})
    endforeach()
  endforeach()

  if(TARGET ${target})
    add_custom_target(${target}_oklc_kernels DEPENDS ${outputs})
    add_dependencies(${target} ${target}_oklc_kernels)
  else()
    add_custom_target(${target} ALL DEPENDS ${outputs})
  endif()
  set_property(TARGET ${target} APPEND PROPERTY OKLC_OUTPUTS ${outputs})
  if(K_OUTPUTS)
    set(${K_OUTPUTS} ${outputs} PARENT_SCOPE)
  endif()
endfunction()
