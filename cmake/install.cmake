# Installation (make install PREFIX=..., cmake --install BUILD --prefix ...):
#   bin/oklc, lib/liboklc.so.0 (+ links), lib/liboklc.a, include/oklc/,
#   lib/pkgconfig/oklc.pc, lib/cmake/oklc/ (find_package(oklc): oklc::oklc,
#   the command as oklc::cli, oklc_add_kernels() from oklcKernels.cmake),
#   share/doc/oklc/; the oklt interface (lib/liboklc-oklt.so, include/oklt/,
#   the component oklt of the CMake package: oklc::oklt) and
#   share/oklc/occa-transpiler/, OCCA's deps/occa-transpiler (docs/occa.md).
#   Nothing installed names the build tree or the prefix:
#   the kernels' preludes are compiled into the library, oklc.pc finds the
#   prefix from its own place (${pcfiledir}) and the CMake files from theirs,
#   so the tree may be moved after installing.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The command is in the CMake package too, as oklc::cli (oklc_add_kernels).
set_target_properties(oklc PROPERTIES EXPORT_NAME cli)
install(TARGETS oklc EXPORT oklcTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS oklc_shared EXPORT oklcTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS oklc_lib ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS oklc_oklt EXPORT oklcOkltTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/oklt DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES cmake/occa-transpiler/CMakeLists.txt
        DESTINATION ${CMAKE_INSTALL_DATADIR}/oklc/occa-transpiler)
install(FILES include/oklc/oklc.h include/oklc/runtime.h include/oklc/plugin.h
              include/oklc/okl.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/oklc)

# pkg-config: the prefix relative to the .pc file's folder.
set(OKLC_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH OKLC_PC_TO_PREFIX /root/${OKLC_PC_DIR} /root)
string(REGEX REPLACE "/$" "" OKLC_PC_TO_PREFIX "${OKLC_PC_TO_PREFIX}")
configure_file(cmake/oklc.pc.in ${CMAKE_CURRENT_BINARY_DIR}/oklc.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/oklc.pc DESTINATION ${OKLC_PC_DIR})

# CMake package: oklcConfig.cmake, its version file, the imported target.
set(OKLC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/oklc)
install(EXPORT oklcTargets NAMESPACE oklc:: DESTINATION ${OKLC_CMAKE_DIR})
install(EXPORT oklcOkltTargets NAMESPACE oklc:: DESTINATION ${OKLC_CMAKE_DIR})
configure_package_config_file(cmake/oklcConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/oklcConfig.cmake
                              INSTALL_DESTINATION ${OKLC_CMAKE_DIR})
# 0.x: a new minor version may change the API.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/oklcConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/oklcConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/oklcConfigVersion.cmake
              cmake/oklcKernels.cmake
        DESTINATION ${OKLC_CMAKE_DIR})

install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} FILES_MATCHING PATTERN "*.md")
# The man page, oklc(1) (tests/man/man.sh checks it against oklc --help).
install(FILES docs/oklc.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
