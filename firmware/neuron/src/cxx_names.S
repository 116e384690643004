// The device library's functions under their C++ names (the manglings of allocator.o and its
// neighbours), for C++ firmware that declares them itself without extern "C": each name jumps
// to the C function, which does the work (and is the name the simulator watches).

#define CXX_NAME(mangled, target) \
    .globl mangled;               \
    .type mangled, @function;     \
mangled:                          \
    tail target;                  \
    .size mangled, . - mangled

    .text
    .p2align 2
CXX_NAME(_Z25init_neuron_hbm_allocatorv, init_neuron_hbm_allocator)
CXX_NAME(_Z29init_neuron_dataram_allocatorv, init_neuron_dataram_allocator)
CXX_NAME(_Z25_init_libc_heap_allocatorv, _init_libc_heap_allocator)
CXX_NAME(_Z19neuron_hbm_allocatejPyj, neuron_hbm_allocate)
CXX_NAME(_Z21neuron_hbm_deallocatey, neuron_hbm_deallocate)
CXX_NAME(_Z23neuron_dataram_allocatejPPvj, neuron_dataram_allocate)
CXX_NAME(_Z25neuron_dataram_deallocatePv, neuron_dataram_deallocate)
CXX_NAME(_Z19_libc_heap_allocatejj, _libc_heap_allocate)
CXX_NAME(_Z21_libc_heap_deallocatePv, _libc_heap_deallocate)
CXX_NAME(_Z25_libc_heap_get_alloc_sizePv, _libc_heap_get_alloc_size)
CXX_NAME(_Z25_libc_heap_max_free_spacev, _libc_heap_max_free_space)
CXX_NAME(_Z18allocate_hbm_stackjjj, allocate_hbm_stack)
CXX_NAME(_Z11switchStackv, switchStack)
CXX_NAME(_Z15switchStackBackv, switchStackBack)
CXX_NAME(_Z24set_data_transfer_method20data_transfer_method, set_data_transfer_method)
CXX_NAME(_Z21data_transfer_to_dramPvyj, data_transfer_to_dram)
CXX_NAME(_Z23data_transfer_from_dramyPKvj, data_transfer_from_dram)
CXX_NAME(_Z18tensor_stream_copyyyy, tensor_stream_copy)
