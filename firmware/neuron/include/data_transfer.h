// The Neuron device library's data transfers (data_transfer.o): HBM <-> dataram copies and
// TensorStream copies through a 4 KiB bounce buffer from the dataram heap, with one of three
// methods (data_transfer_method_table): C_MEMCPY (word copies by the core through the HBM
// window), VEC_MEMCPY (NPUSIM_VECTOR_BYTES-sized chunks), DMA (descriptors to the DMA engine).
// HBM addresses are 64-bit HBM device addresses (as neuron_hbm_allocate gives them).
#ifndef NPUSIM_NEURON_DATA_TRANSFER_H
#define NPUSIM_NEURON_DATA_TRANSFER_H

#ifdef __cplusplus
extern "C" {
#endif

#define BUFFER_SIZE_BYTES 4096

typedef enum data_transfer_method { C_MEMCPY = 0, VEC_MEMCPY = 1, DMA = 2 } data_transfer_method;

void set_data_transfer_method(data_transfer_method m);
// The dataram address must lie in [0x80000, 0x90000) (its start only: data_transfer.cpp:160).
int data_transfer_to_dram(void *dram_addr, unsigned long long hbm_addr, unsigned bytes);
int data_transfer_from_dram(unsigned long long hbm_addr, const void *dram_addr, unsigned bytes);
int tensor_stream_copy(unsigned long long dst, unsigned long long src, unsigned long long bytes);

#ifdef __cplusplus
}
#endif

#endif  // NPUSIM_NEURON_DATA_TRANSFER_H
