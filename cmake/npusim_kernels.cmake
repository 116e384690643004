# The CMake functions that build custom-op kernels (docs/custom-ops.md): npusim_add_torch_op,
# npusim_add_torch_plugin, npusim_add_custom_op, and npusim_compile_kernels under them. npusim's
# own tree includes this file from firmware/torch/CMakeLists.txt; the installed package includes
# its copy from npusimConfig.cmake, so the same calls work in a project that does
# find_package(npusim).
#
# Kernel sources are compiled by clang++-14 with the npusim kernel-cost pass (-fpass-plugin), so
# the kernel's own code is timed when it runs (docs/kernel-accuracy.md). The includer sets:
#   NPUSIM_TORCH_INCLUDE_DIR  the torch API headers (<torch/torch.h>, <neuron/neuron-utils.hpp>,
#                             "torchneuron/register.h")
#   NPUSIM_KERNEL_CXX         the kernel compiler (clang++-14)
#   NPUSIM_KERNEL_COST_PASS   the pass plugin, a file or a generator expression
#   NPUSIM_KERNEL_COST_TARGET (npusim's tree only) the target that builds the pass
# and has the target npusim::torch. Inside npusim's tree npusim's warning flags also apply to its
# own kernels; a project of yours gets no flags from npusim.
foreach(v NPUSIM_TORCH_INCLUDE_DIR NPUSIM_KERNEL_CXX NPUSIM_KERNEL_COST_PASS)
  if(NOT ${v})
    message(FATAL_ERROR "npusim_kernels.cmake: set ${v} before including it")
  endif()
  # Kept globally: the functions are called from other directories than the one that included this.
  set_property(GLOBAL PROPERTY ${v} "${${v}}")
endforeach()
set_property(GLOBAL PROPERTY NPUSIM_KERNEL_COST_TARGET "${NPUSIM_KERNEL_COST_TARGET}")

# npusim_compile_kernels(<out-var> <name> SOURCES src... [DEFINITIONS d...] [OPTIONS o...]
# [WARNINGS]): the sources compiled as kernels (-std=c++17 -O2 -fPIC, the pass, the torch API
# headers, then OPTIONS), each into an object file under <name>.kernels/ (their list in
# <out-var>). WARNINGS: npusim's own warning flags (npusim's kernels; user code gets none).
function(npusim_compile_kernels out name)
  cmake_parse_arguments(K "WARNINGS" "" "SOURCES;DEFINITIONS;OPTIONS" ${ARGN})
  get_property(include_dir GLOBAL PROPERTY NPUSIM_TORCH_INCLUDE_DIR)
  get_property(cxx GLOBAL PROPERTY NPUSIM_KERNEL_CXX)
  get_property(pass GLOBAL PROPERTY NPUSIM_KERNEL_COST_PASS)
  get_property(pass_target GLOBAL PROPERTY NPUSIM_KERNEL_COST_TARGET)
  set(flags -std=c++17 -O2 -fPIC -fpass-plugin=${pass} -I${include_dir})
  # Inside npusim's tree its kernels may also include the runtime's headers ("firmware/...").
  if(TARGET npusim_flags)
    list(APPEND flags -I${PROJECT_SOURCE_DIR})
  endif()
  if(K_WARNINGS AND TARGET npusim_flags)
    list(APPEND flags -Wall -Wextra)
    if(NPUSIM_WERROR)
      list(APPEND flags -Werror)
    endif()
  endif()
  foreach(d IN LISTS K_DEFINITIONS)
    list(APPEND flags -D${d})
  endforeach()
  list(APPEND flags ${K_OPTIONS})
  set(objs)
  set(i 0)
  foreach(src IN LISTS K_SOURCES)
    get_filename_component(abs ${src} ABSOLUTE)
    get_filename_component(base ${src} NAME_WE)
    set(obj ${CMAKE_CURRENT_BINARY_DIR}/${name}.kernels/${i}_${base}.o)
    add_custom_command(OUTPUT ${obj}
                       COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/${name}.kernels
                       COMMAND ${cxx} ${flags} -MD -MF ${obj}.d -c ${abs} -o ${obj}
                       DEPENDS ${abs} ${pass_target}
                       DEPFILE ${obj}.d
                       COMMENT "Compiling kernel ${base} (npusim kernel-cost pass)"
                       VERBATIM COMMAND_EXPAND_LISTS)
    list(APPEND objs ${obj})
    math(EXPR i "${i} + 1")
  endforeach()
  set(${out} ${objs} PARENT_SCOPE)
endfunction()

# npusim_add_torch_op(<target> SOURCES kernel.cpp... shape.cpp [STACK_SIZE n]): kernel and
# shape files, unchanged, compiled as kernels into statically registered ops. Link <target> into
# an executable with ENABLE_EXPORTS (the kernel is found by its symbol name, as on the device).
function(npusim_add_torch_op target)
  cmake_parse_arguments(OP "" "STACK_SIZE" "SOURCES" ${ARGN})
  set(defs)
  if(OP_STACK_SIZE)
    list(APPEND defs STACK_SIZE=${OP_STACK_SIZE})
  endif()
  npusim_compile_kernels(objs ${target} SOURCES ${OP_SOURCES} DEFINITIONS ${defs} WARNINGS)
  add_custom_target(${target}_kernels DEPENDS ${objs})
  add_library(${target} INTERFACE)
  target_sources(${target} INTERFACE ${objs})
  target_link_libraries(${target} INTERFACE npusim::torch)
  add_dependencies(${target} ${target}_kernels)
endfunction()

# npusim_add_torch_plugin(<target> SOURCES ... [STACK_SIZE n]): the same files, compiled as
# kernels, as a shared library that `npusim run --plugin <file>` loads; it resolves the torch
# API against the npusim executable.
function(npusim_add_torch_plugin target)
  cmake_parse_arguments(OP "" "STACK_SIZE" "SOURCES" ${ARGN})
  set(defs)
  if(OP_STACK_SIZE)
    list(APPEND defs STACK_SIZE=${OP_STACK_SIZE})
  endif()
  npusim_compile_kernels(objs ${target} SOURCES ${OP_SOURCES} DEFINITIONS ${defs} WARNINGS)
  add_library(${target} MODULE ${objs})
  set_target_properties(${target} PROPERTIES LINKER_LANGUAGE CXX)
endfunction()

# npusim_add_custom_op(<name> COMPUTE kernel.cpp... SHAPE shape.cpp... [MULTICORE]
# [EXTRA_CFLAGS flag...]): the library lib<name>.so that custom_op.load(name=, compute_srcs=,
# shape_srcs=, multicore=, extra_cflags=) builds on the device, for `npusim run --plugin`; the
# same as `npusim op build`. User code: npusim's warning flags are not applied.
function(npusim_add_custom_op name)
  cmake_parse_arguments(OP "MULTICORE" "" "COMPUTE;SHAPE;EXTRA_CFLAGS" ${ARGN})
  if(NOT OP_COMPUTE OR NOT OP_SHAPE)
    message(FATAL_ERROR "npusim_add_custom_op(${name}): COMPUTE and SHAPE sources are required")
  endif()
  set(defs)
  if(OP_MULTICORE)
    list(APPEND defs NPUSIM_MULTICORE=1)
  endif()
  npusim_compile_kernels(objs ${name} SOURCES ${OP_COMPUTE} ${OP_SHAPE} DEFINITIONS ${defs} OPTIONS ${OP_EXTRA_CFLAGS})
  add_library(${name} MODULE ${objs})
  set_target_properties(${name} PROPERTIES PREFIX "lib" OUTPUT_NAME ${name} LINKER_LANGUAGE CXX)
endfunction()
