# npusim as a CMake package (docs/use-the-models.md): `cmake --install build --prefix P` puts
# the libraries in P/lib, their headers in P/include/npusim (the torch API headers at its top,
# as kernels include them: <torch/torch.h>, <neuron/neuron-utils.hpp>), the program in P/bin and
# npusimConfig.cmake / npusimTargets.cmake in P/lib/cmake/npusim, with the namespaced targets
# npusim::allocators, npusim::models, npusim::platforms, npusim::firmware, npusim::torch
# (+ npusim::flags, the link options the libraries were built with), and the kernel functions
# of npusim_kernels.cmake.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(NPUSIM_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/npusim)
set(NPUSIM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/npusim)
# library target -> exported name (npusim::<name>)
set(NPUSIM_EXPORTED allocators models platforms firmware torch)

# The libraries name their include directories as source paths; an installed target must
# name the installed ones. Wrap every source/build path (whoever added it) for the build tree.
foreach(name IN LISTS NPUSIM_EXPORTED)
  set(t npusim_${name})
  get_target_property(dirs ${t} INTERFACE_INCLUDE_DIRECTORIES)
  set(wrapped "")
  foreach(d IN LISTS dirs)
    if(d MATCHES "^\\$<")
      list(APPEND wrapped "${d}")
    else()
      list(APPEND wrapped "$<BUILD_INTERFACE:${d}>")
    endif()
  endforeach()
  list(APPEND wrapped "$<INSTALL_INTERFACE:${NPUSIM_INSTALL_INCLUDEDIR}>")
  set_target_properties(${t} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${wrapped}" EXPORT_NAME ${name})
  list(APPEND NPUSIM_EXPORTED_TARGETS ${t})
endforeach()
set_target_properties(npusim_flags PROPERTIES EXPORT_NAME flags)

install(TARGETS ${NPUSIM_EXPORTED_TARGETS} npusim_flags EXPORT npusimTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS npusim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The kernel-cost pass, where `npusim op build` and the package's kernel functions find it.
install(TARGETS npusim_kernel_cost LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/npusim)

# Headers, in the layout the sources include them by ("models/hbm.h").
set(npusim_header_dirs allocators models platforms firmware)
foreach(dir IN LISTS npusim_header_dirs)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir} DESTINATION ${NPUSIM_INSTALL_INCLUDEDIR}
          FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp" REGEX "firmware/torch/include" EXCLUDE
          REGEX "firmware/snrt" EXCLUDE REGEX "firmware/neuron(/|$)" EXCLUDE)
endforeach()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/firmware/torch/include/ DESTINATION ${NPUSIM_INSTALL_INCLUDEDIR})
# npusim's Snitch runtime (start-up code, snrt.h, the C library subset), where `npusim cc`
# finds it beside the installed program: share/npusim/snrt.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/firmware/snrt/ DESTINATION ${CMAKE_INSTALL_DATADIR}/npusim/snrt)
# The Neuron device library for firmware programs on the neuron-gpsimd management core
# (headers, start-up code, sources): share/npusim/neuron.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/firmware/neuron/ DESTINATION ${CMAKE_INSTALL_DATADIR}/npusim/neuron)

install(EXPORT npusimTargets NAMESPACE npusim:: DESTINATION ${NPUSIM_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/npusimConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/npusimConfig.cmake
                              INSTALL_DESTINATION ${NPUSIM_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/npusimConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/npusimConfig.cmake ${PROJECT_BINARY_DIR}/npusimConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/npusim_kernels.cmake
        DESTINATION ${NPUSIM_INSTALL_CMAKEDIR})
